// The native cache store: entries uploaded as parts, merged into a
// deduplicating pack of content-defined chunks, restored in parallel.
//
// A store is a directory (see docs/formats.md, "Store"):
//
//   catalog.db           SQLite in WAL mode, schema versioned in meta('schema_version')
//                        with ordered migrations (Schema.cpp)
//   parts/<id>/<index>   raw uploaded parts of entry <id> (a number, never derived
//                        from the key); parts are written as <index>.tmp.* then renamed
//   pack/                cs::pack::Pack: chunks (one sized, checksummed zstd frame each,
//                        deduplicated by SHA-256) and nodes (an entry's root, a tree of
//                        nodes when it has more than kMaxNodeChildren chunks)
//
// Keys are data: any byte string up to kMaxKeyBytes, stored as TEXT bound by
// parameters, never used in a path.
//
// Entry states: 'uploading' (reserved, parts arriving), 'unmerged' (committed,
// size and SHA-256 known, bytes in parts/), 'merged' (bytes in the pack under
// root_offset, parts deleted). A crash at any point leaves an entry unmerged
// with all its parts, or merged: the merge syncs the pack, then switches the
// entry in one transaction, and only then deletes the parts.
//
// GC contract: what merges, eviction and the GC promise each other about
// gc_state, the split and the dedup rows is written once, in core/gc/GcCatalog.h.
//
// Orphaned parts: evict, re-put (commit replacing an entry), abort and merge
// delete catalog rows first and part folders after, so a crash in between
// leaves files no row references. An orphan is, under parts/: a name that is
// not a decimal id (the trash of an interrupted removal); the folder of an id
// with no entries row or of a merged entry; in the folder of an unmerged
// entry, a file that is not one of its committed parts. The folder of an
// 'uploading' entry is never an orphan: its row is how an upload in progress
// (in any process) registers itself, and its parts may arrive at any time
// (stale uploads go with `evict --older-than`). fsck reports orphans;
// removeOrphans (`store fsck --repair`) deletes them: for each folder it
// re-reads the row inside a write transaction (so no reserve can take the id
// meanwhile), renames the folder to parts/<id>.orphan.<pid>.<n> and commits,
// then deletes the renamed folder; a crash at any step leaves an orphan the
// next run removes. reserve() likewise sets aside a stale folder of the id it
// was given (ids of deleted rows are reused by SQLite).
// Crash tests kill a process at named points (CACHESCOPE_STORE_KILL_AT, the
// names in core/util/KillPoint.h).
#pragma once
#include "core/store/Chunker.h"
#include "core/util/Sha256.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cs {
class File;
class FileLock;
class InputFile;
class Job;
namespace pack { class Pack; }
}

namespace cs::store {

struct StoreTestHooks;

constexpr size_t kMaxKeyBytes = 4096;
constexpr size_t kMaxPartBytes = size_t(256) << 20;   // a part larger than this is refused
// Default bound of putFile on a stream: larger input is refused unless the
// caller raises it, so endless input (a /dev/zero) cannot fill the disk.
constexpr uint64_t kMaxStreamBytes = uint64_t(16) << 30;
constexpr int kCompressionLevel = 3;

enum class EntryState { Uploading, Unmerged, Merged };
const char* entryStateName(EntryState s);                 // "uploading", "unmerged", "merged"
std::optional<EntryState> parseEntryState(const std::string& name);

struct StoreOptions {
    int threads = 0;                       // worker threads for merge and restore; 0 = hardware threads
    int compressionLevel = kCompressionLevel;
    // Restores of merged entries check every zstd frame's checksum while
    // decoding (what `zstd -d` checks) and the sizes of every chunk, node
    // and the entry; with verifyChunks each chunk's SHA-256 too, in the
    // decoding threads (`store get --verify`). The entry's whole SHA-256 is
    // checked when a first restore streams the parts and by fsck; see
    // "Integrity of a restore" in docs/formats.md.
    bool verifyChunks = false;
    // Tests only (StoreTesting.h); none in a real store.
    std::shared_ptr<const StoreTestHooks> testHooks;
    // Content-defined chunking of merges. Keep the default in a real store:
    // other sizes cut other chunks, so nothing dedups with entries merged
    // before (tests use tiny chunks to get entries of many chunks).
    ChunkerParams chunker;
};

// One catalog row of the entries table (what `store ls` prints).
struct EntryRow {
    int64_t id = 0;
    std::string key;
    std::string version;
    std::string scope;
    uint64_t size = 0;
    std::string sha256;          // hex, empty while uploading
    EntryState state = EntryState::Uploading;
    uint64_t rootOffset = 0;     // merged only
    uint32_t partCount = 0;
    double created = 0;          // unix seconds
    double lastAccess = 0;       // unix seconds; 0 = never restored
    bool synthetic = false;      // made by testing::generateSyntheticEntries (StoreTesting.h)
    std::string repo;            // the repository it belongs to ('' for native puts; schema 5)
    std::string origin;          // where an imported entry came from ("actions:<id>@<updatedAt>"), else ''
    std::string mergeError;      // unmerged: the sentence of its last failed merge ("" = none)
    bool merging = false;        // not a column: set by readers that ask Store::mergeRunning
};

// Restore lookup (GitHub Actions cache semantics): exact key, then the newest
// entry whose key starts with key, then for each restore key: exact, then
// newest with that prefix; always within version and scope. Only unmerged and
// merged entries match.
struct RestoreRequest {
    std::string key;
    std::vector<std::string> restoreKeys;
    std::string version;
    std::string scope;
};

struct RestoreResult {
    EntryRow entry;              // state as it was when the restore began
    std::string matchedBy;       // "key", "key-prefix", "restore-key", "restore-key-prefix"
    uint64_t bytes = 0;
    bool mergedNow = false;      // this restore merged the entry while streaming it
    bool waitedForMerge = false; // another restore in this process was merging it
    bool mergeSkipped = false;   // unmerged in a store this process may not write: streamed from the parts, left unmerged
    bool mergeRunningElsewhere = false;   // another process was merging it: streamed from the parts beside it
    // Unmerged, restored completely (every byte out and matching the
    // SHA-256), but the merge behind it failed (a full disk): the restore
    // succeeded and the entry stays unmerged; this says why, for a warning
    // (the row keeps the merge's own sentence, EntryRow::mergeError).
    std::string mergeError;
};

struct MergeResult {
    int64_t entryId = 0;
    std::string key;
    bool merged = false;         // false: already merged (by someone else)
    uint64_t bytes = 0;          // logical size
    uint64_t chunks = 0;         // chunks in the entry
    uint64_t newChunks = 0;      // chunks appended (not deduplicated)
    uint64_t appendedBytes = 0;  // pack bytes appended (chunks and nodes)
    uint64_t rootOffset = 0;
    int redone = 0;              // times redone because a GC started meanwhile
};

// What putMerged stored: the entry's row and what the merge appended.
struct PutResult {
    EntryRow entry;
    MergeResult merge;
};

// Receives restored bytes in order (streaming restore).
using Sink = std::function<void(const void* data, size_t size)>;

struct EvictPolicy {
    std::optional<double> olderThanSeconds;  // created before now - this
    std::optional<double> unusedForSeconds;  // last access (or creation when never read) before now - this
    std::optional<uint64_t> maxBytes;        // then least recently used first until logical bytes <= this
    std::vector<std::string> keys;           // these keys (any version and scope)
    bool dryRun = false;
    double now = 0;                          // 0 = current time
    // An upload (state uploading) goes only when it has been idle this long
    // (reserved and no part written since), whatever the policy: a running
    // `store put` is never evicted under it. Default: a day, the age at
    // which fsck calls an upload stale.
    double staleUploadSeconds = 24 * 3600;
};

struct EvictResult {
    std::vector<EntryRow> evicted;           // (or would be, in a dry run)
    // Uploads the policy named that are still running (idle for less than
    // staleUploadSeconds): kept, and listed so the preview says so.
    std::vector<EntryRow> keptRunningUploads;
    uint64_t bytes = 0;                      // logical bytes evicted
    uint64_t partBytes = 0;                  // part bytes freed on disk
    bool dryRun = false;
};

struct FsckProblem {
    int64_t entryId = 0;         // 0 when not about one entry
    std::string key;
    std::optional<uint64_t> offset;   // pack offset, or part index for part problems
    std::string message;              // one sentence
    std::string path;                 // orphans: the file or folder no catalog row references
    std::optional<uint64_t> bytes;    // orphans: its size on disk (files in it, summed)
};

struct OrphanRemoval {
    std::vector<FsckProblem> removed;  // as fsck reported them (path, bytes)
    uint64_t bytes = 0;
};

struct StoreStats {
    uint64_t entries = 0;          // unmerged + merged
    uint64_t mergedEntries = 0;
    uint64_t unmergedEntries = 0;
    uint64_t uploadingEntries = 0;
    uint64_t logicalBytes = 0;     // sum of entry sizes (unmerged + merged)
    uint64_t mergedLogicalBytes = 0;
    uint64_t storedBytes = 0;      // pack bytes of objects reachable from live entries
    uint64_t unmergedBytes = 0;    // bytes in parts of unmerged entries
    uint64_t packBytes = 0;        // pack files on disk (suffix + prefix + mapping)
    uint64_t chunkRows = 0;        // rows of the dedup index
    uint64_t failedMerges = 0;     // unmerged entries whose last merge failed (EntryRow::mergeError)
    double dedupRatio = 0;         // mergedLogicalBytes / storedBytes (0 when nothing stored)
};

// Filter and paging for the store browser.
struct EntryFilter {
    std::string keyContains;     // substring of the key (case-sensitive); empty = all
    std::string keyPrefix;       // key starts with (uses the index)
    std::optional<EntryState> state;
    std::optional<std::string> version;
    std::optional<std::string> scope;
};

enum class SortColumn { Id, Key, Version, Scope, Size, State, Parts, Created, LastAccess };
std::optional<SortColumn> parseSortColumn(const std::string& name);   // "key", "size", "last_access", ...

// Where a row sits in a sorted listing: its sort column's value, then its id
// (rows with equal values are ordered by id). NULL (last_access of an entry
// never restored) sorts first ascending, last descending. Unused for SortColumn::Id.
struct SortKey {
    std::variant<std::monostate, int64_t, double, std::string> value;   // monostate = NULL
    int64_t id = 0;
};

// Random access into one listing (filter, sort, direction) without OFFSET
// walks (Paging.cpp): keys[i] is the key of row (i + 1) * stride - 1, read by
// one scan of the sort column's index. Valid while the catalog's entry change
// counters (table entries_generation) equal the ones read with the scan.
struct PageAnchors {
    EntryFilter filter;
    SortColumn sort = SortColumn::Id;
    bool descending = false;
    uint64_t stride = 0;
    uint64_t rows = 0;              // rows of the listing when built
    std::vector<SortKey> keys;
    int64_t rowsGeneration = 0;     // entries inserted, deleted or changed
    int64_t accessGeneration = 0;   // last_access changed (matters when sorted by it)
};

struct PartInfo {
    uint32_t index = 0;
    uint64_t size = 0;
    bool present = false;        // the part file exists with that size
    std::optional<uint32_t> crc32c;   // recorded at commit (schema 4 on); none for older parts
};

struct ObjectInfo {
    enum Kind { Node, Chunk } kind = Chunk;
    uint64_t offset = 0;
    uint64_t storedBytes = 0;    // whole object in the pack
    uint64_t logicalSize = 0;    // raw bytes of a chunk, bytes under a node
    uint64_t position = 0;       // chunk: where its bytes go in the entry
    int depth = 0;               // 0 = root
    uint32_t children = 0;       // node only
    std::string sha256;          // chunk only, hex
    uint64_t sharedWith = 0;     // chunk: how many OTHER live entries reference it
};

struct EntryDetails {
    EntryRow entry;
    std::vector<PartInfo> parts;
    std::vector<ObjectInfo> objects;   // merged: root first, then depth-first in entry order
    std::string treeError;             // set when the tree could not be read completely
};

class Store {
public:
    // Creates an empty store (catalog, parts/, pack/) or opens an existing one
    // and migrates its schema.
    static std::unique_ptr<Store> init(const std::string& dir, StoreOptions options = {});
    // Opens an existing store; throws cs::Error naming dir when it is not one.
    static std::unique_ptr<Store> open(const std::string& dir, StoreOptions options = {});
    static bool isStore(const std::string& dir);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    const std::string& dir() const;
    std::string catalogPath() const;   // dir/catalog.db (other modules open their own connection)
    pack::Pack& pack();
    // This user may not write the store: restores stream, nothing merges.
    bool readOnly() const;
    int schemaVersion() const;
    static int latestSchemaVersion();

    // ---- Upload (any thread) ----
    // Throws on a key over kMaxKeyBytes or a version/scope over kMaxKeyBytes.
    int64_t reserve(const std::string& key, const std::string& version = {}, const std::string& scope = {});
    void writePart(int64_t uploadId, uint32_t index, const void* data, size_t size);
    // A part is written without an fsync of its own (writeback started):
    // commit makes the parts durable, all together, before its row names them.
    // Checks parts 0..n-1 are all there (n = expectedParts when given, else
    // highest index + 1), hashes them in order (fdatasync of each in the
    // same pass, one fsync of their folder after), switches the entry to
    // unmerged and replaces an older entry with the same key, version and
    // scope in the same transaction. A failed commit changes nothing.
    EntryRow commit(int64_t uploadId, std::optional<uint32_t> expectedParts = {});
    // Before commit: the upload is an import, with the owner (repo), creation
    // time (unix seconds, kept by commit) and origin its source gave it. The
    // commit then replaces an entry of the same key, version, scope and repo.
    void setImportedIdentity(int64_t uploadId, const std::string& repo, double created, const std::string& origin);
    // The committed entry imported from `origin`, if any.
    std::optional<EntryRow> findImported(const std::string& origin) const;
    void abortUpload(int64_t uploadId);
    // Convenience: reserve, cut the file into parts of partSize, upload them
    // from `threads` threads (taken in order; the SHA-256 and CRC-32Cs are
    // taken as the bytes go by, so each byte is read once), sync them all,
    // commit.
    // A path that is not a regular file ("-", /dev/stdin, a pipe, FIFO or
    // character device) is streamed instead: read in order, each part
    // written as soon as it is full, so memory holds one part whatever the
    // size. A stream that gives no byte stores nothing (an error); one that
    // goes past maxBytes is an error that stores nothing. maxBytes unset:
    // kMaxStreamBytes for streams, no limit for regular files; set: the
    // limit for both (0 = none). A failure or cancel aborts the upload (no
    // row, no parts left).
    EntryRow putFile(const std::string& key, const std::string& path, Job& job, const std::string& version = {},
                     const std::string& scope = {}, uint64_t partSize = 1 << 20, int threads = 4,
                     std::optional<uint64_t> maxBytes = {});
    // Put and merge of a regular file in one pass (`store put` without
    // --no-merge): the file is read once, straight into the chunker (chunks
    // hashed, compressed and appended to the pack on the pool's threads, the
    // whole SHA-256 taken on the way), and its entry is committed merged in
    // one transaction that also replaces an older entry with the same key,
    // version and scope. No parts are written: the entry lists 0 parts.
    // Anything but a regular file is refused (putFile streams it into parts,
    // then merge()). maxBytes: as putFile's for a regular file (unset or 0:
    // no limit). A failure or a crash leaves the committed entries as they
    // were: what was appended for it is truncated away on a failure and is
    // unreferenced pack bytes GC reclaims after a crash. A GC that starts
    // meanwhile makes it read the file again, as it makes a merge redo.
    PutResult putMerged(const std::string& key, const std::string& path, Job& job, const std::string& version = {},
                        const std::string& scope = {}, std::optional<uint64_t> maxBytes = {});

    // ---- Merge ----
    MergeResult merge(int64_t entryId, Job& job);
    std::vector<MergeResult> mergeAll(Job& job);   // every unmerged entry

    // ---- Background merges ----
    // `store get` and `store put` return once the output or the commit is
    // safe and leave the merge to a process of their own (app/cli/Handover.h).
    // Each such process holds this shared lease on merges.lock from before
    // its command returns until it exits, so the kernel, not a row a crash
    // could leave behind, tells whether one runs. A merge that fails keeps
    // its sentence in the row (EntryRow::mergeError) until one succeeds.
    FileLock holdBackgroundMerge() const;
    bool backgroundMergesRunning() const;
    // Until no process holds the lease (polled: cancellable).
    void waitForBackgroundMerges(Job& job) const;
    // A merge of this entry holds its merge lock now, in any process.
    bool mergeRunning(int64_t id) const;

    // ---- Lookup and restore ----
    std::optional<EntryRow> entry(int64_t id) const;
    std::optional<EntryRow> findEntry(const std::string& key, const std::string& version = {},
                                      const std::string& scope = {}) const;   // exact, committed only
    std::optional<std::pair<EntryRow, std::string>> lookup(const RestoreRequest& request) const;
    // Restores to outPath through a temp file + rename (or straight into a
    // non-regular file such as /dev/null). Throws when nothing matches.
    // onDelivered (optional) runs once the output is complete and in place:
    // for an unmerged entry that is before the merge behind it commits. With
    // it, an unmerged entry's parts go to a regular output first (a kernel
    // copy, each part's CRC-32C checked on a second thread) and the merge
    // starts after: the output is there at `cat`'s speed. Without it they
    // go beside the merge, which ends the whole restore sooner.
    RestoreResult restoreToFile(const RestoreRequest& request, const std::string& outPath, Job& job,
                                const std::function<void(const RestoreResult&)>& onDelivered = {});
    RestoreResult restoreEntryToFile(int64_t entryId, const std::string& outPath, Job& job,
                                     const std::function<void()>& onDelivered = {});
    // Streams the bytes in order to sink (first restore of an unmerged entry
    // merges it at the same time). The SHA-256 is verified at the end: when
    // it does not match, throws after the sink saw the bytes.
    RestoreResult restoreEntry(int64_t entryId, const Sink& sink, Job& job);

    // ---- Eviction, checks, statistics ----
    EvictResult evict(const EvictPolicy& policy, Job& job);
    // Reads everything, changes nothing: entries decode, parts match their
    // size and CRC-32C, dedup rows name their chunk, stale uploads, orphaned
    // parts, files an interrupted GC left in pack/.
    std::vector<FsckProblem> fsck(Job& job);
    // `store fsck --repair`: deletes orphaned parts (see "Orphaned parts"
    // above; never a part of an upload in progress or anything a catalog row
    // references), stale uploads (reserved more than a day ago, with their
    // parts), and, unless a GC is running, the files of other generations in
    // pack/ (after control and the current generation checked out) and dedup
    // rows that do not name their chunk. Never an entry or a pack object.
    OrphanRemoval removeOrphans(Job& job);
    // Walks the roots of live entries to count the pack bytes they reference.
    StoreStats stats(Job& job) const;

    // ---- Store browser ----
    uint64_t countEntries(const EntryFilter& filter) const;
    std::vector<EntryRow> listEntries(const EntryFilter& filter, SortColumn sort, bool descending, uint64_t offset,
                                      uint64_t limit) const;
    // Keyset paging: the rows after `after` (from the first row when null),
    // skipping `skip` of them; a seek on (sort column, id), no walk over the rows before.
    std::vector<EntryRow> listEntriesAfter(const EntryFilter& filter, SortColumn sort, bool descending,
                                           const SortKey* after, uint64_t skip, uint64_t limit) const;
    // One scan of the listing (on its own connection, so it does not block
    // this store's other calls) keeping every stride-th key. Cancellable.
    PageAnchors buildPageAnchors(const EntryFilter& filter, SortColumn sort, bool descending, Job& job,
                                 uint64_t stride = 256) const;
    // The rows listEntries(anchors.filter, .sort, .descending, offset, limit)
    // returns, by a seek from the anchor at or before offset (skipping fewer
    // than stride rows). When the entries changed since the anchors were built
    // the rows are read with OFFSET instead (still exact) and *stale is set.
    std::vector<EntryRow> listEntries(const PageAnchors& anchors, uint64_t offset, uint64_t limit,
                                      bool* stale = nullptr) const;
    EntryDetails entryDetails(int64_t id) const;

    struct Impl;

private:
    explicit Store(std::unique_ptr<Impl> impl);
    EntryRow putStream(const std::string& key, InputFile& in, Job& job, const std::string& version,
                       const std::string& scope, uint64_t partSize, uint64_t maxBytes);
    std::unique_ptr<Impl> d;
};

// Validates a key (length); throws cs::Error with a clear sentence.
void checkKey(const std::string& key, const char* what = "key");

} // namespace cs::store
