// Merge: parts -> content-defined chunks -> deduplicated pack objects -> a
// root node, then one transaction switches the entry to merged; only then
// are the parts deleted. See the GC contract in Store.h for the epoch rule.
#include "core/store/ChunkBuffers.h"
#include "core/store/Chunker.h"
#include "core/store/StoreInternal.h"
#include "core/store/TaskPool.h"

#include "core/jobs/Job.h"
#include "core/util/Crc32c.h"
#include "core/util/Error.h"
#include "core/util/File.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

namespace cs::store {

namespace {

struct DigestLess {
    bool operator()(const Digest& a, const Digest& b) const { return a < b; }
};

struct NewChunk {
    Digest sha{};
    uint64_t offset = 0;
    uint32_t rawSize = 0;
    uint64_t storedSize = 0;
};

// The state of one merge attempt shared with its chunk tasks.
struct MergeAttempt {
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

    std::optional<uint64_t> lookupChunk(const Digest& sha)
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
    void checkDedupRow(const Digest& sha, uint64_t offset)
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
                                        + "; the pack lost objects the catalog knows, so nothing was merged and the "
                                          "parts stay: store fsck lists the rows and the entries that lost objects, "
                                          "store fsck --repair deletes the rows");
    }

    // Runs on a pool thread. The chunk's buffer goes back to the free list
    // before the group hears of it, so the reader's next buffer reuses it.
    void process(size_t seq, ChunkBuffer data)
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
};

// The delivery thread of a first restore. Its error fails the merge; a
// merge that fails (or returns) first abandons it and waits for it, so the
// sink and the callbacks it uses outlive it.
class Delivery {
public:
    std::atomic<bool> abandon{false};

    Delivery() = default;
    Delivery(const Delivery&) = delete;
    Delivery& operator=(const Delivery&) = delete;
    ~Delivery()
    {
        abandon = true;
        join();
    }
    void start(std::function<void()> work)
    {
        thread_ = std::thread([this, work = std::move(work)] {
            try {
                work();
            } catch (...) {
                error_ = std::current_exception();
                failed_.store(true, std::memory_order_release);
            }
        });
    }
    void rethrowIfFailed() const
    {
        if (failed_.load(std::memory_order_acquire))
            std::rethrow_exception(error_);
    }
    // Waits for the delivery; throws its error.
    void finish()
    {
        join();
        if (error_)
            std::rethrow_exception(error_);
    }

private:
    void join()
    {
        if (thread_.joinable())
            thread_.join();
    }
    std::thread thread_;
    std::atomic<bool> failed_{false};
    std::exception_ptr error_;
};

struct RedoMerge {};
struct AlreadyMerged {};

// Merges in one process take turns beyond a few at a time: they share the
// pool's few threads anyway, so more at once only hold more chunk buffers
// (each a 4.25 MiB current chunk plus its in-flight share) and churn the
// buffer free list; 16 concurrent first restores peaked at 177 MiB. Waiting
// costs the reader nothing: a first restore has delivered its bytes before
// its merge asks for a turn.
class MergeTurn {
public:
    explicit MergeTurn(Job& job)
    {
        State& s = state();
        std::unique_lock lock(s.mutex);
        while (s.running >= s.limit) {
            s.cv.wait_for(lock, std::chrono::milliseconds(50));
            if (job.isCancelled())
                throw Cancelled();
        }
        ++s.running;
    }
    ~MergeTurn()
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        --s.running;
        s.cv.notify_one();
    }
    MergeTurn(const MergeTurn&) = delete;
    MergeTurn& operator=(const MergeTurn&) = delete;

private:
    struct State {
        std::mutex mutex;
        std::condition_variable cv;
        int running = 0;
        int limit = TaskPool::shared().size() + 1;
    };
    static State& state()
    {
        static State* s = new State();   // never destroyed: merges may run during exit
        return *s;
    }
};

// Merges of one entry queue, in every process: an exclusive flock on its
// parts folder (two open file descriptions conflict even in one process, so
// threads with separate Store objects queue too). Waits with cancel checks.
// When the folder is gone the entry was merged or evicted meanwhile: no
// lock, the caller re-reads the row.
class EntryMergeLock {
public:
    EntryMergeLock(const std::string& folder, Job& job)
    {
        fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd_ < 0)
            return;
        while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) {
                const int err = errno;
                ::close(fd_);
                errno = err;
                failErrno(folder, "cannot lock the part folder for a merge");
            }
            if (job.isCancelled()) {
                ::close(fd_);
                throw Cancelled();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    ~EntryMergeLock()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    EntryMergeLock(const EntryMergeLock&) = delete;
    EntryMergeLock& operator=(const EntryMergeLock&) = delete;

private:
    int fd_ = -1;
};

// Every part carries the CRC-32C that commit computed in the pass that also
// made the entry's SHA-256 (schema 4 on); parts of older catalogs do not.
bool allPartsHaveCrc(const std::vector<PartInfo>& parts)
{
    for (const auto& p : parts)
        if (!p.crc32c)
            return false;
    return true;
}

} // namespace

// A part whose size or CRC-32C differs from its commit: the sentence that
// names it (partProblem reads it again to say what is wrong).
[[noreturn]] static void failPart(const Store::Impl& d, const EntryRow& e, const PartInfo& p)
{
    if (auto problem = d.partProblem(e.id, e.key, p))
        throw Error(*problem + " (entry '" + e.key + "'); nothing was merged");
    fail(d.partPath(e.id, p.index), "part " + std::to_string(p.index) + " of entry '" + e.key
                                        + "' changed while it was read; nothing was merged");
}

void Store::Impl::streamParts(const EntryRow& e, const std::vector<PartInfo>& parts, const Sink& sink,
                              uint64_t* sent, Job& job, const std::atomic<bool>* abandon) const
{
    std::vector<char> buf(size_t(1) << 20);
    uint64_t total = 0;
    for (const auto& p : parts) {
        File f = layout->openPart(e.id, p.index);   // never through a link
        if (f.size() != p.size)
            failPart(*this, e, p);
        uint32_t crc = 0;
        for (uint64_t pos = 0; pos < p.size;) {
            job.checkCancel();
            if (abandon && abandon->load(std::memory_order_relaxed))
                throw Cancelled();
            const size_t want = size_t(std::min<uint64_t>(buf.size(), p.size - pos));
            f.readAt(buf.data(), want, pos);
            crc = crc32c(crc, buf.data(), want);
            sink(buf.data(), want);
            if (sent)
                *sent += want;
            pos += want;
            total += want;
            if (!abandon)   // beside a merge, the merge reports progress
                job.setStepProgress(total, std::max<uint64_t>(e.size, 1));
        }
        if (p.crc32c && crc != *p.crc32c)
            failPart(*this, e, p);
    }
    if (total != e.size)
        fail(partsDir(e.id), "the parts of entry '" + e.key + "' hold " + std::to_string(total)
                                 + " bytes, the commit recorded " + std::to_string(e.size));
}

void Store::Impl::dropAppended(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) const
{
    if (ranges.empty())
        return;
    try {
        pack->dropOwnTail(ranges);
    } catch (const std::exception&) {
        // Garbage GC reclaims; the merge's own error matters more.
    }
}

void Store::Impl::clearStaleGcFlag() const
{
    {
        auto lock = catalog->lock();
        auto q = catalog->prepare("SELECT running FROM gc_state WHERE id=1");
        if (!q.step() || q.i64(0) == 0)
            return;
    }
    // A GC holds its lock from before it sets running=1 until it ends; a
    // free lock means the GC that set it failed or died. Its catalog
    // transaction (dead rows deleted, running=0) comes before its swap, so
    // with running=1 still set no generation was swapped and every chunk row
    // is valid: clearing the flag lets dedup use all of them again.
    FileLock gc = pack->tryLockGc();
    if (!gc.held())
        return;
    Transaction tx(*catalog, Transaction::Immediate);
    catalog->exec("UPDATE gc_state SET running=0 WHERE id=1");
    tx.commit();
}

MergeResult Store::Impl::mergeEntry(const EntryRow& e, Job& job, const Sink* tee, uint64_t* teeBytes,
                                    const std::function<void()>* streamed)
{
    MergeResult result;
    result.entryId = e.id;
    result.key = e.key;
    result.bytes = e.size;
    // Another merge of this entry (another process, another Store) finishes
    // first; then there is nothing left to do but stream from the pack.
    EntryMergeLock entryLock(partsDir(e.id), job);
    {
        const auto now = entry(e.id);
        if (!now)
            throw Error(dir + ": entry '" + e.key + "' was removed before it could be merged");
        if (now->state == EntryState::Merged) {
            if (tee) {
                restoreMerged(*now, -1, tee, 0, job);
                if (teeBytes)
                    *teeBytes += now->size;
            }
            result.merged = false;
            result.rootOffset = now->rootOffset;
            return result;
        }
    }
    clearStaleGcFlag();
    const auto parts = partRows(e.id);
    if (parts.size() != e.partCount)
        throw Error(dir + ": entry '" + e.key + "' lists " + std::to_string(parts.size()) + " parts, expected "
                    + std::to_string(e.partCount));
    const uint64_t maxInFlight = uint64_t(threads()) * (1u << 20) + (1u << 20);
    // With a CRC-32C per part, a first restore gives the reader its bytes at
    // the speed of copying the parts (each part checked against its commit
    // CRC before the file is handed over) on a delivery thread, while the
    // merge reads the same parts beside it (from the page cache): delivering
    // first and merging after left one core idle for the whole delivery.
    // The merge checks each part's CRC-32C as well instead of a serial
    // SHA-256 of the whole entry: the CRCs were computed at commit from the
    // same bytes as the SHA-256, and the chunks' own SHA-256s are computed
    // anyway (see "Integrity" in docs/formats.md).
    const bool partCrcs = allPartsHaveCrc(parts);
    Delivery delivery;
    if (tee && partCrcs) {
        delivery.start([this, &e, &parts, tee, teeBytes, &job, streamed, &delivery] {
            streamParts(e, parts, *tee, teeBytes, job, &delivery.abandon);
            if (streamed && *streamed)
                (*streamed)();
        });
        tee = nullptr;
    }
    const MergeTurn turn(job);

    for (int attempt = 0;; ++attempt) {
        if (attempt > 8)
            throw Error(dir + ": entry '" + e.key + "': merge was redone 8 times because GC kept starting; try again later");
        int64_t epoch0 = 0;
        {
            auto lock = catalog->lock();
            auto q = catalog->prepare("SELECT epoch FROM gc_state WHERE id=1");
            if (q.step())
                epoch0 = q.i64(0);
        }
        const Sink* sink = attempt == 0 ? tee : nullptr;
        MergeAttempt m(*this, options.compressionLevel);
        try {
            Chunker chunker(options.chunker);
            // Parts are read straight into the current chunk's buffer; at a cut
            // only the bytes past it (less than one block) move to the next one.
            // The chunker cuts at maxSize, so a buffer holds less than maxSize
            // before a read and at most maxSize + blockSize after.
            const size_t blockSize = 256u << 10;
            const size_t bufferBytes = chunker.params().maxSize + blockSize;
            ChunkBuffer current(bufferBytes);
            size_t seq = 0;
            auto submit = [&] {
                m.group.waitBelow(maxInFlight);
                {
                    std::lock_guard g(m.mutex);
                    m.order.emplace_back();
                }
                const size_t s = seq++;
                m.group.add(current.size);
                // std::function needs a copyable callable: the buffer rides in a shared_ptr.
                auto data = std::make_shared<ChunkBuffer>(std::move(current));
                TaskPool::shared().submit([&m, s, data] { m.process(s, std::move(*data)); });
            };
            Sha256 whole;
            uint64_t total = 0;
            try {
                for (const auto& p : parts) {
                    File f = layout->openPart(e.id, p.index);
                    if (f.size() != p.size)
                        fail(f.path(), "part has " + std::to_string(f.size()) + " bytes, the catalog says "
                                           + std::to_string(p.size));
                    uint32_t crc = 0;
                    uint64_t pos = 0;
                    while (pos < p.size) {
                        job.checkCancel();
                        delivery.rethrowIfFailed();
                        {
                            std::lock_guard g(m.mutex);
                            if (m.error)
                                std::rethrow_exception(m.error);
                        }
                        const size_t want = size_t(std::min<uint64_t>(blockSize, p.size - pos));
                        char* block = current.data() + current.size;
                        f.readAt(block, want, pos);
                        pos += want;
                        if (partCrcs)
                            crc = crc32c(crc, block, want);
                        else
                            whole.update(block, want);
                        if (sink) {
                            (*sink)(block, want);
                            if (teeBytes)
                                *teeBytes += want;
                        }
                        size_t scanned = current.size;
                        current.size += want;
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
                        total += want;
                        job.setStepProgress(total, std::max<uint64_t>(e.size, 1));
                    }
                    if (partCrcs && crc != *p.crc32c)
                        failPart(*this, e, p);
                }
                if (current.size > 0)
                    submit();
                // The bytes are all read: checked against the commit's size and
                // CRC-32Cs or SHA-256 before anyone is told they are complete.
                if (total != e.size || (!partCrcs && hexOf(whole.finish()) != e.sha256)) {
                    // Name the part when its CRC-32C tells which one changed.
                    for (const auto& p : parts)
                        if (auto problem = partProblem(e.id, e.key, p))
                            throw Error(*problem + " (entry '" + e.key + "'); nothing was merged");
                    fail(partsDir(e.id), "the parts of entry '" + e.key + "' no longer match the size and SHA-256 recorded at commit");
                }
                if (sink && streamed && *streamed)
                    (*streamed)();
            } catch (...) {
                m.group.waitAll();
                throw;
            }
            m.group.waitAll();
            if (m.error)
                std::rethrow_exception(m.error);

            std::vector<pack::ChildRef> refs;
            refs.reserve(m.order.size());
            for (const auto& [sha, size] : m.order)
                refs.push_back({*m.offsets.at(sha), size});
            uint64_t appended = m.appendedBytes;
            const uint64_t root = writeTree(*pack, refs, appended, &m.ranges);
            pack->sync();
            // The reader has every byte before the entry is merged; a failed
            // delivery fails the merge as it did when it came first.
            delivery.finish();
            job.checkCancel();
            if (options.beforeMergeCommit)
                options.beforeMergeCommit(e.id);

            Transaction tx(*catalog, Transaction::Immediate);
            {
                auto q = catalog->prepare("SELECT epoch FROM gc_state WHERE id=1");
                if (q.step() && q.i64(0) != epoch0) {
                    // A GC started after we began: objects we reused or appended may
                    // lie below its split and be missing from its roots. Redo.
                    throw RedoMerge{};   // the transaction rolls back
                }
            }
            auto st = catalog->prepare("SELECT state FROM entries WHERE id=?1");
            st.bind(1, e.id);
            if (!st.step())
                throw Error(dir + ": entry '" + e.key + "' was removed while it was being merged");
            const std::string state = st.text(0);
            if (state == "merged")
                throw AlreadyMerged{};
            if (state != "unmerged")
                throw Error(dir + ": entry '" + e.key + "' is " + state + ", it cannot be merged");
            catalog->prepare("UPDATE entries SET state='merged', root_offset=?2 WHERE id=?1").bind(1, e.id).bind(2, root).run();
            auto ins = catalog->prepare(
                "INSERT INTO chunks(sha256, offset, raw_size, stored_size) VALUES(?1, ?2, ?3, ?4) "
                "ON CONFLICT(sha256) DO UPDATE SET offset=excluded.offset, stored_size=excluded.stored_size "
                "WHERE (SELECT running FROM gc_state WHERE id=1)=1 "
                "AND chunks.offset < (SELECT split FROM gc_state WHERE id=1) "
                "AND excluded.offset >= (SELECT split FROM gc_state WHERE id=1)");
            for (const auto& c : m.appended) {
                ins.reset();
                ins.bindBlob(1, c.sha.data(), c.sha.size()).bind(2, c.offset).bind(3, c.rawSize).bind(4, c.storedSize).run();
            }
            tx.commit();
            killPoint("merge remove");
            removeParts(e.id);
            result.merged = true;
            result.chunks = refs.size();
            result.newChunks = m.appended.size();
            result.appendedBytes = appended;
            result.rootOffset = root;
            return result;
        } catch (const RedoMerge&) {
            // A GC started after we began: objects we reused or appended may
            // lie below its split and be missing from its roots. Redo.
            m.group.waitAll();
            dropAppended(m.ranges);
            result.redone++;
            continue;
        } catch (const AlreadyMerged&) {
            m.group.waitAll();
            dropAppended(m.ranges);
            result.merged = false;
            result.rootOffset = entry(e.id).value_or(EntryRow{}).rootOffset;
            return result;
        } catch (...) {
            // Nothing references what this attempt appended: give the space
            // back (a full disk must not grow the pack by each failed merge).
            m.group.waitAll();
            dropAppended(m.ranges);
            throw;
        }
    }
}

MergeResult Store::merge(int64_t id, Job& job)
{
    auto e = d->entry(id);
    if (!e)
        throw Error(d->dir + ": entry " + std::to_string(id) + " does not exist");
    if (e->state == EntryState::Merged) {
        MergeResult r;
        r.entryId = id;
        r.key = e->key;
        r.bytes = e->size;
        r.rootOffset = e->rootOffset;
        return r;
    }
    if (e->state != EntryState::Unmerged)
        throw Error(d->dir + ": entry '" + e->key + "' is still uploading; commit it first");
    // Share an in-flight merge of the same entry in this process.
    std::shared_ptr<InFlightMerge> flight;
    bool mine = false;
    {
        std::lock_guard g(d->inflightMutex);
        auto& slot = d->inflight[id];
        if (!slot) {
            slot = std::make_shared<InFlightMerge>();
            mine = true;
        }
        flight = slot;
    }
    if (!mine) {
        std::unique_lock lock(flight->mutex);
        flight->done.wait(lock, [&] { return flight->finished; });
        if (!flight->ok)
            throw Error(flight->error);
        MergeResult r;
        r.entryId = id;
        r.key = e->key;
        r.bytes = e->size;
        r.rootOffset = d->entry(id).value_or(EntryRow{}).rootOffset;
        return r;
    }
    auto finishFlight = [&](bool ok, const std::string& err) {
        {
            std::lock_guard g(d->inflightMutex);
            d->inflight.erase(id);
        }
        std::lock_guard lock(flight->mutex);
        flight->finished = true;
        flight->ok = ok;
        flight->error = err;
        flight->done.notify_all();
    };
    try {
        MergeResult r = d->mergeEntry(*e, job, nullptr, nullptr, nullptr);
        finishFlight(true, {});
        return r;
    } catch (const std::exception& ex) {
        finishFlight(false, ex.what());
        throw;
    }
}

std::vector<MergeResult> Store::mergeAll(Job& job)
{
    std::vector<std::pair<int64_t, uint64_t>> ids;
    uint64_t totalBytes = 0;
    {
        auto lock = d->catalog->lock();
        auto q = d->catalog->prepare("SELECT id, size FROM entries WHERE state='unmerged' ORDER BY id");
        while (q.step()) {
            ids.emplace_back(q.i64(0), uint64_t(q.i64(1)));
            totalBytes += uint64_t(q.i64(1));
        }
    }
    std::vector<MergeResult> results;
    uint64_t done = 0;
    for (const auto& [id, size] : ids) {
        job.checkCancel();
        // Progress of the whole run through a nested job that forwards (and
        // passes a cancel down).
        Job sub;
        const double total = double(std::max<uint64_t>(totalBytes, 1));
        sub.setListener([&job, &sub, base = double(done), size = double(size), total](const JobStatus& s) {
            job.setStepProgress((base + s.stepFraction * size) / total);
            if (job.isCancelled())
                sub.cancel();
        });
        sub.start();
        results.push_back(merge(id, sub));
        done += size;
        job.setStepProgress(done, std::max<uint64_t>(totalBytes, 1));
    }
    return results;
}

} // namespace cs::store
