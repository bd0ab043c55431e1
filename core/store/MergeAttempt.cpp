// One attempt of a merge: see MergeAttempt.h.
#include "core/store/MergeAttempt.h"

#include "core/pack/ObjectFormat.h"
#include "core/util/Error.h"

#include <cstring>

namespace cs::store {

int64_t gcEpoch(Catalog& catalog)
{
    auto lock = catalog.lock();
    auto q = catalog.prepare("SELECT epoch FROM gc_state WHERE id=1");
    return q.step() ? q.i64(0) : 0;
}

std::optional<uint64_t> MergeAttempt::lookupChunk(const Digest& sha)
{
    auto lock = d.catalog->lock();
    auto q = d.catalog->prepare("SELECT c.offset FROM chunks c, gc_state g WHERE c.sha256=?1 AND g.id=1 "
                                "AND (g.running=0 OR c.offset>=g.split)");
    q.bindBlob(1, sha.data(), sha.size());
    if (!q.step())
        return std::nullopt;
    return uint64_t(q.i64(0));
}

// A dedup row is only trusted when the chunk at its offset is that
// chunk: after the pack lost its tail (truncated, restored from an older
// backup) a row past the end would make the entry reference nothing.
void MergeAttempt::checkDedupRow(const Digest& sha, uint64_t offset)
{
    std::string why;
    try {
        const pack::ObjectHeader h = d.pack->readHeader(offset);
        if (h.kind != pack::ObjectKind::Chunk || h.sha256 != sha)
            why = "which holds another object";
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        why = std::string("which cannot be read (") + e.what() + ")";
    }
    if (!why.empty())
        fail(d.catalog->path(), "the dedup row of chunk " + hexOf(sha).substr(0, 16) + " names pack offset "
                                    + std::to_string(offset) + ", " + why
                                    + "; the pack lost objects the catalog knows, so nothing was stored in the pack (an "
                                      "unmerged entry keeps its parts): store fsck lists the rows and the entries that lost objects, "
                                      "store fsck --repair deletes the rows");
}

// Runs on a pool thread. The chunk's buffer goes back to the free list
// before the group hears of it, so the reader's next buffer reuses it.
void MergeAttempt::process(size_t seq, ChunkBuffer data)
{
    const uint64_t bytes = data.size;
    try {
        const Digest sha = Sha256::of(data.data(), data.size);
        bool claimed = false;
        {
            std::lock_guard g(mutex);
            order[seq] = {sha, uint32_t(data.size)};
            if (!offsets.count(sha)) {
                offsets[sha] = std::nullopt;
                claimed = true;
            }
        }
        if (claimed && !error) {
            std::optional<uint64_t> off = lookupChunk(sha);
            if (off)
                checkDedupRow(sha, *off);
            if (!off) {
                // The object is built in place: frame after the header's room,
                // then the header, then one write from this buffer.
                thread_local std::vector<char> object;
                const size_t bound = pack::chunkObjectBound(data.size);
                if (object.size() < bound)
                    object.resize(bound);
                const size_t frame = pack::compressChunkFrameInto(data.data(), data.size, level,
                                                                  object.data() + pack::kChunkHeaderBytes,
                                                                  object.size() - pack::kChunkHeaderBytes);
                pack::encodeChunkHeader(object.data(), sha, uint32_t(data.size), uint32_t(frame));
                const uint64_t objectSize = pack::kChunkHeaderBytes + frame;
                off = d.pack->append(object.data(), objectSize);
                std::lock_guard g(mutex);
                ranges.emplace_back(*off, objectSize);
                appended.push_back({sha, *off, uint32_t(data.size), objectSize});
                appendedBytes += objectSize;
            }
            std::lock_guard g(mutex);
            offsets[sha] = off;
        }
    } catch (...) {
        std::lock_guard g(mutex);
        if (!error)
            error = std::current_exception();
    }
    data = ChunkBuffer();
    group.finish(bytes);
}

// Cuts the bytes read(block, max) gives (up to max at block, 0 at the
// end) into chunks and hands each to the pool. They are read straight
// into the current chunk's buffer; at a cut only the bytes past it (less
// than one block) move to the next one. The chunker cuts at maxSize, so
// a buffer holds less than maxSize before a read and at most maxSize +
// blockSize after. atEnd runs once every byte is read, before the wait
// for the last chunks. Returns when every chunk is processed; throws the
// first error of a chunk or of read.
void MergeAttempt::chunk(const ChunkerParams& params, const std::function<size_t(char*, size_t)>& read,
                         const std::function<void()>& atEnd)
{
    // The window of bytes in flight: a chunk per pool thread plus one.
    const uint64_t maxInFlight = uint64_t(d.threads()) * (1u << 20) + (1u << 20);
    Chunker chunker(params);
    const size_t bufferBytes = params.maxSize + kMergeBlockBytes;
    ChunkBuffer current(bufferBytes);
    size_t seq = 0;
    auto submit = [&] {
        group.waitBelow(maxInFlight);
        {
            std::lock_guard g(mutex);
            order.emplace_back();
        }
        const size_t s = seq++;
        group.add(current.size);
        // std::function needs a copyable callable: the buffer rides in a shared_ptr.
        auto data = std::make_shared<ChunkBuffer>(std::move(current));
        TaskPool::shared().submit([this, s, data] { process(s, std::move(*data)); });
    };
    try {
        for (;;) {
            {
                std::lock_guard g(mutex);
                if (error)
                    std::rethrow_exception(error);
            }
            const size_t got = read(current.data() + current.size, kMergeBlockBytes);
            if (got == 0)
                break;
            size_t scanned = current.size;
            current.size += got;
            while (scanned < current.size) {
                bool cut = false;
                scanned += chunker.feed(reinterpret_cast<const uint8_t*>(current.data() + scanned),
                                        current.size - scanned, cut);
                if (cut) {
                    ChunkBuffer next(bufferBytes);
                    next.size = current.size - scanned;
                    std::memcpy(next.data(), current.data() + scanned, next.size);
                    current.size = scanned;
                    submit();
                    current = std::move(next);
                    scanned = 0;
                }
            }
        }
        if (current.size > 0)
            submit();
        if (atEnd)
            atEnd();
    } catch (...) {
        group.waitAll();
        throw;
    }
    group.waitAll();
    if (error)
        std::rethrow_exception(error);
}

// After chunk(): the entry's tree of nodes over its chunks, appended, and
// the pack synced. Returns the root; appendedOut = every byte appended.
uint64_t MergeAttempt::writeObjects(uint64_t& appendedOut, uint64_t& chunkCount)
{
    std::vector<pack::ChildRef> refs;
    refs.reserve(order.size());
    for (const auto& [sha, size] : order)
        refs.push_back({*offsets.at(sha), size});
    appendedOut = appendedBytes;
    const uint64_t root = writeTree(*d.pack, refs, appendedOut, &ranges);
    d.pack->sync();
    chunkCount = refs.size();
    return root;
}

// In the commit transaction: the dedup rows of the chunks appended. A row
// below a running GC's split is moved to the new copy (Store.h, GC contract).
void MergeAttempt::insertChunkRows() const
{
    auto ins = d.catalog->prepare(
        "INSERT INTO chunks(sha256, offset, raw_size, stored_size) VALUES(?1, ?2, ?3, ?4) "
        "ON CONFLICT(sha256) DO UPDATE SET offset=excluded.offset, stored_size=excluded.stored_size "
        "WHERE (SELECT running FROM gc_state WHERE id=1)=1 "
        "AND chunks.offset < (SELECT split FROM gc_state WHERE id=1) "
        "AND excluded.offset >= (SELECT split FROM gc_state WHERE id=1)");
    for (const auto& c : appended) {
        ins.reset();
        ins.bindBlob(1, c.sha.data(), c.sha.size()).bind(2, c.offset).bind(3, c.rawSize).bind(4, c.storedSize).run();
    }
}

namespace {

struct TurnState {
    std::mutex mutex;
    std::condition_variable cv;
    int running = 0;
    int limit = TaskPool::shared().size() + 1;
};

TurnState& turnState()
{
    static TurnState* s = new TurnState();   // never destroyed: merges may run during exit
    return *s;
}

} // namespace

MergeTurn::MergeTurn(Job& job)
{
    TurnState& s = turnState();
    std::unique_lock lock(s.mutex);
    while (s.running >= s.limit) {
        s.cv.wait_for(lock, std::chrono::milliseconds(50));
        if (job.isCancelled())
            throw Cancelled();
    }
    ++s.running;
}

MergeTurn::~MergeTurn()
{
    TurnState& s = turnState();
    std::lock_guard lock(s.mutex);
    --s.running;
    s.cv.notify_one();
}

} // namespace cs::store
