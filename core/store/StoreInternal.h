// Internals shared by the store's source files (not a public header).
#pragma once
#include "core/pack/Pack.h"
#include "core/store/Catalog.h"
#include "core/store/Store.h"
#include "core/store/StoreLayout.h"
#include "core/store/StoreTesting.h"
#include "core/util/KillPoint.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace cs::store {

// Columns selected for an EntryRow, in the order rowFrom() reads them.
constexpr const char* kEntryColumns =
    "id, key, version, scope, size, sha256, state, root_offset, part_count, created, last_access, synthetic, repo, "
    "origin, merge_error";
EntryRow rowFrom(const Statement& s, int first = 0);

// One merge of an entry running in this process; concurrent restores of the
// same entry wait for it instead of merging again.
// A restore output that is a regular file: its descriptor and the position
// the next byte goes to (advanced as bytes are written).
struct PartsTarget {
    int fd = -1;
    uint64_t* pos = nullptr;
};

struct InFlightMerge {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    bool ok = false;
    std::string error;
};

struct Store::Impl {
    std::string dir;
    std::unique_ptr<StoreLayout> layout;   // every path below dir goes through it
    StoreOptions options;
    std::unique_ptr<Catalog> catalog;
    std::unique_ptr<pack::Pack> pack;

    std::mutex inflightMutex;
    std::map<int64_t, std::shared_ptr<InFlightMerge>> inflight;

    int threads() const;
    std::string partsDir(int64_t id) const { return layout->partsPath(id); }
    std::string partPath(int64_t id, uint32_t index) const { return layout->partPath(id, index); }
    void removeParts(int64_t id) const;
    // In the caller's write transaction: inserts an 'uploading' row and
    // returns its id, above every id this store has handed out (meta
    // 'last_entry_id'). SQLite alone gives a deleted last row's id to the next
    // insert, and evict, replace and repair remove the parts folder of the
    // rows they deleted after their commit: a new upload under that id lost
    // the folder it was writing (two writers, tst_gc_store_faults).
    int64_t insertUpload(const std::string& key, const std::string& version, const std::string& scope,
                         double created) const;

    std::optional<EntryRow> entry(int64_t id) const;
    // A merge of the entry holds its merge lock (in any process; BackgroundMerges.cpp).
    bool mergeLockHeld(int64_t id) const;
    std::vector<PartInfo> partRows(int64_t id) const;   // from the catalog (sizes), present not checked
    // What is wrong with a committed part file (missing, another size, a
    // CRC-32C other than the one recorded at commit), naming it; nothing when good.
    std::optional<std::string> partProblem(int64_t id, const std::string& key, const PartInfo& part) const;

    // Merge: streams the parts of an unmerged entry through the chunker into
    // the pack and switches it to merged. tee (optional) receives the bytes
    // in order; streamed (optional) is called once all of them went to tee
    // and matched the entry's size and checksums, before the merge commits.
    // With a CRC-32C per part, tee and streamed are called on a delivery
    // thread that runs beside the merge (joined before the merge commits).
    // Returns the result; throws on failure (of the merge or the delivery:
    // then nothing was merged).
    // teeFile (optional): tee is the regular file teeFile names; with a
    // CRC-32C per part the parts are then copied to it in the kernel
    // (copyParts) on this thread before the merge starts, and streamed is
    // called here, instead of on the delivery thread beside the merge.
    MergeResult mergeEntry(const EntryRow& e, Job& job, const Sink* tee, uint64_t* teeBytes,
                           const std::function<void()>* streamed, const PartsTarget* teeFile = nullptr);
    // Sends the parts of e to sink in order, each checked against the size and
    // CRC-32C of its commit; throws naming the part. A part committed before
    // the CRCs (none recorded) is checked for size only: the caller then
    // checks the entry's SHA-256 over what it received. With abandon (set by
    // a merge that failed beside it), stops with Cancelled once it is set
    // and leaves progress to the merge.
    void streamParts(const EntryRow& e, const std::vector<PartInfo>& parts, const Sink& sink, uint64_t* sent,
                     Job& job, const std::atomic<bool>* abandon = nullptr) const;
    // streamParts into a regular file at *out.pos (PartsCopy.cpp), before
    // the merge starts (it reports the progress): each part copied in the
    // kernel while a second thread checks its CRC-32C; returns
    // once every part is out and checked, throws naming a bad part. Every
    // part must have its CRC-32C.
    void copyParts(const EntryRow& e, const std::vector<PartInfo>& parts, const PartsTarget& out, uint64_t* sent,
                   Job& job) const;
    // A part whose size or CRC-32C differs from its commit: throws the
    // sentence that names it (partProblem reads it again to say what is wrong).
    [[noreturn]] void failPart(const EntryRow& e, const PartInfo& p) const;
    // putMerged of a regular file (PutMerged.cpp): in is open, size its size.
    PutResult mergeFile(const File& in, uint64_t size, const std::string& key, const std::string& version,
                        const std::string& scope, Job& job);
    // In a commit's write transaction: deletes the committed entries with
    // this key, version, scope (and repo) other than keep, with their part rows, and
    // returns their ids; their parts go after the commit (removeReplaced,
    // the "replace remove" kill point before each).
    std::vector<int64_t> deleteReplaced(const std::string& key, const std::string& version, const std::string& scope,
                                        int64_t keep, const std::string& repo = {}) const;
    void removeReplaced(const std::vector<int64_t>& ids) const;
    // The commit of upload e whose parts 0..n-1 (n = sizes.size()) are
    // durable, with what was seen of them: their sizes, CRC-32Cs, total and
    // SHA-256 (hex). One transaction (replacing an older entry of the same
    // identity), then the replaced entries' parts and stray temp files go.
    EntryRow commitSeen(const EntryRow& e, const std::optional<Folder>& folder, const std::vector<uint64_t>& sizes,
                        const std::vector<uint32_t>& crcs, uint64_t total, const std::string& hex) const;
    // In the write transaction that took id: a folder parts/<id> already there
    // is an orphan (a crash between deleting the row that had the id, which
    // SQLite reuses, and its parts): renamed aside so its parts never count
    // as the new entry's. Returns the new name ("" when none), for
    // dropSetAside after the commit.
    std::string setAsideStaleParts(int64_t id) const;
    void dropSetAside(const std::string& name) const;
    // Keeps the sentence of a failed merge on the unmerged row (best effort:
    // a read-only store or a full disk keeps the merge's own error instead).
    void recordMergeError(int64_t id, const std::string& message) const;
    // Truncates the pack back over objects a failed merge appended (Pack::dropOwnTail).
    void dropAppended(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) const;
    // gc_state.running=1 while no GC holds the GC lock (one failed or died):
    // clears it, so dedup uses every chunk row again.
    void clearStaleGcFlag() const;

    // Restore of a merged entry: decodes chunks in parallel; when fd >= 0,
    // workers pwrite each chunk at its position (plus outOffset); otherwise
    // sink gets the bytes in order. Bytes before skip are decoded but not
    // emitted. Checks frame checksums and sizes (chunk SHA-256s with
    // options.verifyChunks), not the entry's whole SHA-256.
    // fd >= 0: chunks are written at their positions; outName names it in errors.
    void restoreMerged(const EntryRow& e, int fd, const Sink* sink, uint64_t skip, Job& job,
                       const std::string& outName = "restore output");

    // Walks a root: the chunks of an entry in order (offset, logical size).
    std::vector<pack::ChildRef> chunkList(uint64_t root, std::vector<ObjectInfo>* objects = nullptr) const;

    // Orphaned parts as fsck problems (Orphans.cpp; see Store.h).
    std::vector<FsckProblem> findOrphans(Job& job) const;

    // Repair.cpp: files of other generations and *.tmp in pack/ (empty while
    // a GC runs), uploads reserved longer than kStaleUploadSeconds ago, and
    // dedup rows that do not name their chunk.
    std::vector<FsckProblem> findPackLeftovers() const;
    std::vector<EntryRow> staleUploads(double now) const;
    // When an upload last did something: its reservation, or the newest
    // write into its parts folder (a part file, or the folder itself).
    double lastUploadActivity(const EntryRow& upload) const;
    struct DedupRow {
        std::string sha256;
        uint64_t offset = 0;
        uint64_t rawSize = 0;
        std::string why;
    };
    std::vector<DedupRow> badDedupRows(Job& job) const;
    // fsck --repair beyond orphaned parts: reaps stale uploads, and under the
    // GC lock removes pack leftovers and deletes bad dedup rows.
    void repairBeyondParts(OrphanRemoval& out, Job& job);
};

// An upload reserved this long ago and not committed is stale: fsck reports
// it and fsck --repair removes it (so does evict --older-than).
constexpr double kStaleUploadSeconds = 24 * 3600;
FsckProblem staleUploadProblem(const EntryRow& e, double now);

// CACHESCOPE_STORE_KILL_AT=point[:n]: SIGKILL the n-th time `point` (one of
// killpoints::store) is passed.
void killPoint(const char* point);

// Writes objects (chunks and nodes) for a list of chunk refs: nodes of at most
// kMaxNodeChildren children, children before parents. Returns the root offset
// and adds the bytes appended to appended.
// When ranges is given, (offset, length) of every node appended go there.
uint64_t writeTree(pack::Pack& pack, const std::vector<pack::ChildRef>& chunks, uint64_t& appended,
                   std::vector<std::pair<uint64_t, uint64_t>>* ranges = nullptr);

std::string hexOf(const Digest& d);

// The smallest string greater than every string starting with prefix, or
// nothing when there is none (a prefix of 0xFF bytes): the upper bound of an
// indexed key-prefix range.
std::optional<std::string> prefixSuccessor(std::string prefix);

} // namespace cs::store
