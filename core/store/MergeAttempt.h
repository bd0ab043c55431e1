// One attempt of a merge (Merge.cpp: an unmerged entry's parts; PutMerged.cpp:
// a regular file): bytes cut into content-defined chunks on the reading
// thread, each chunk hashed (SHA-256), looked up for dedup, compressed and
// appended by the shared pool's threads, then the entry's tree of nodes. The
// caller commits (or drops what was appended). Internal to core/store.
#pragma once
#include "core/store/ChunkBuffers.h"
#include "core/store/Chunker.h"
#include "core/store/StoreInternal.h"
#include "core/store/TaskPool.h"

#include "core/jobs/Job.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace cs::store {

// A merge reads its input in blocks of this size.
constexpr size_t kMergeBlockBytes = 256u << 10;

// Thrown in a commit transaction when a GC started after the attempt began
// (gc_state.epoch changed): objects it reused or appended may lie below the
// GC's split and be missing from its roots, so the attempt is redone.
struct RedoMerge {};

// gc_state.epoch (Store.h, GC contract): read when an attempt starts and
// again in its commit transaction.
int64_t gcEpoch(Catalog& catalog);

struct MergeAttempt {
    struct DigestLess {
        bool operator()(const Digest& a, const Digest& b) const { return a < b; }
    };
    struct NewChunk {
        Digest sha{};
        uint64_t offset = 0;
        uint32_t rawSize = 0;
        uint64_t storedSize = 0;
    };

    Store::Impl& d;
    int level;
    std::mutex mutex;
    std::map<Digest, std::optional<uint64_t>, DigestLess> offsets;  // sha -> offset once known
    std::vector<std::pair<Digest, uint32_t>> order;                  // the entry's chunks in order
    std::vector<NewChunk> appended;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;   // every object appended: (offset, length)
    uint64_t appendedBytes = 0;
    std::exception_ptr error;
    TaskGroup group;

    MergeAttempt(Store::Impl& impl, int lvl) : d(impl), level(lvl) {}

    // Cuts the bytes read(block, max) gives (up to max at block, 0 at the
    // end) into chunks and hands each to the pool. atEnd runs once every
    // byte is read, before the wait for the last chunks. Returns when every
    // chunk is processed; throws the first error of a chunk, read or atEnd.
    void chunk(const ChunkerParams& params, const std::function<size_t(char*, size_t)>& read,
               const std::function<void()>& atEnd = {});
    // After chunk(): the entry's tree of nodes over its chunks, appended, and
    // the pack synced. Returns the root; appendedOut = every byte appended
    // (chunks and nodes), chunkCount = the entry's chunks.
    uint64_t writeObjects(uint64_t& appendedOut, uint64_t& chunkCount);
    // In the commit transaction: the dedup rows of the chunks appended.
    void insertChunkRows() const;

private:
    std::optional<uint64_t> lookupChunk(const Digest& sha);
    void checkDedupRow(const Digest& sha, uint64_t offset);
    void process(size_t seq, ChunkBuffer data);
};

// Merges in one process take turns beyond a few at a time: they share the
// pool's few threads anyway, so more at once only hold more chunk buffers
// (each a 4.25 MiB current chunk plus its in-flight share) and churn the
// buffer free list; 16 concurrent first restores peaked at 177 MiB. Waiting
// costs the reader nothing: a first restore has delivered its bytes before
// its merge asks for a turn.
class MergeTurn {
public:
    explicit MergeTurn(Job& job);
    ~MergeTurn();
    MergeTurn(const MergeTurn&) = delete;
    MergeTurn& operator=(const MergeTurn&) = delete;
};

} // namespace cs::store
