// Internals shared by the store's source files (not a public header).
#pragma once
#include "core/pack/Pack.h"
#include "core/store/Catalog.h"
#include "core/store/Store.h"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace cs::store {

// Columns selected for an EntryRow, in the order rowFrom() reads them.
constexpr const char* kEntryColumns =
    "id, key, version, scope, size, sha256, state, root_offset, part_count, created, last_access, synthetic";
EntryRow rowFrom(const Statement& s, int first = 0);

// One merge of an entry running in this process; concurrent restores of the
// same entry wait for it instead of merging again.
struct InFlightMerge {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    bool ok = false;
    std::string error;
};

struct Store::Impl {
    std::string dir;
    StoreOptions options;
    std::unique_ptr<Catalog> catalog;
    std::unique_ptr<pack::Pack> pack;

    std::mutex inflightMutex;
    std::map<int64_t, std::shared_ptr<InFlightMerge>> inflight;

    int threads() const;
    std::string partsDir(int64_t id) const { return dir + "/parts/" + std::to_string(id); }
    std::string partPath(int64_t id, uint32_t index) const { return partsDir(id) + "/" + std::to_string(index); }
    void removeParts(int64_t id) const;

    std::optional<EntryRow> entry(int64_t id) const;
    std::vector<PartInfo> partRows(int64_t id) const;   // from the catalog (sizes), present not checked

    // Merge: streams the parts of an unmerged entry through the chunker into
    // the pack and switches it to merged. tee (optional) receives the bytes
    // in order as they are read. Returns the result; throws on failure.
    MergeResult mergeEntry(const EntryRow& e, Job& job, const Sink* tee, uint64_t* teeBytes);

    // Restore of a merged entry: decodes chunks in parallel; when fd >= 0,
    // workers pwrite each chunk at its position (plus outOffset); otherwise
    // sink gets the bytes in order. Bytes before skip are hashed but not
    // emitted. Verifies size and SHA-256.
    void restoreMerged(const EntryRow& e, int fd, const Sink* sink, uint64_t skip, Job& job);

    // Walks a root: the chunks of an entry in order (offset, logical size).
    std::vector<pack::ChildRef> chunkList(uint64_t root, std::vector<ObjectInfo>* objects = nullptr) const;

    // Orphaned parts as fsck problems (Orphans.cpp; see Store.h).
    std::vector<FsckProblem> findOrphans(Job& job) const;
};

// CACHESCOPE_STORE_KILL_AT=point[:n]: SIGKILL the n-th time `point` is passed.
void killPoint(const char* point);

// Writes objects (chunks and nodes) for a list of chunk refs: nodes of at most
// kMaxNodeChildren children, children before parents. Returns the root offset
// and adds the bytes appended to appended.
uint64_t writeTree(pack::Pack& pack, const std::vector<pack::ChildRef>& chunks, uint64_t& appended);

std::string hexOf(const Digest& d);
bool isRegularOrMissing(const std::string& path);

// The smallest string greater than every string starting with prefix, or
// nothing when there is none (a prefix of 0xFF bytes): the upper bound of an
// indexed key-prefix range.
std::optional<std::string> prefixSuccessor(std::string prefix);

} // namespace cs::store
