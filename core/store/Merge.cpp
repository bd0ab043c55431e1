// Merge: parts -> content-defined chunks -> deduplicated pack objects -> a
// root node, then one transaction switches the entry to merged; only then
// are the parts deleted. See the GC contract in Store.h for the epoch rule.
#include "core/store/MergeAttempt.h"

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

struct AlreadyMerged {};

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

void Store::Impl::failPart(const EntryRow& e, const PartInfo& p) const
{
    if (auto problem = partProblem(e.id, e.key, p))
        throw Error(*problem + " (entry '" + e.key + "'); nothing was merged");
    fail(partPath(e.id, p.index), "part " + std::to_string(p.index) + " of entry '" + e.key
                                      + "' changed while it was read; nothing was merged");
}

void Store::Impl::streamParts(const EntryRow& e, const std::vector<PartInfo>& parts, const Sink& sink,
                              uint64_t* sent, Job& job, const std::atomic<bool>* abandon) const
{
    // Blocks of 128 KiB, as cat's: each is read, CRC'd and written while it
    // is still in the L2 cache; 1 MiB blocks went through memory three times
    // (the delivery took 1.8x cat of the parts, 1.4x with 128 KiB).
    std::vector<char> buf(size_t(128) << 10);
    uint64_t total = 0;
    for (const auto& p : parts) {
        File f = layout->openPart(e.id, p.index);   // never through a link
        if (f.size() != p.size)
            failPart(e, p);
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
            failPart(e, p);
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

void Store::Impl::recordMergeError(int64_t id, const std::string& message) const
{
    if (catalog->readOnly())
        return;
    try {
        Transaction tx(*catalog, Transaction::Immediate);
        catalog->prepare("UPDATE entries SET merge_error=?2 WHERE id=?1 AND state='unmerged'")
            .bind(1, id)
            .bindText(2, message)
            .run();
        tx.commit();
    } catch (const std::exception&) {
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
                                    const std::function<void()>* streamed, const PartsTarget* teeFile)
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
    // With a CRC-32C per part, a first restore gives the reader its bytes at
    // the speed of copying the parts, each part checked against its commit
    // CRC before the file is handed over:
    // - into a regular file (teeFile), first: the kernel copies while a
    //   second thread checks the CRCs (copyParts, both cores), then the
    //   merge reads the parts again from the page cache. Beside the merge
    //   this delivery ran at 1.5-1.6x `cat` of the parts (the merge's three
    //   threads took the cores); first, it runs at `cat`'s speed
    //   (bench_merge "single"), and the merge's own work is the same;
    // - into any other sink, on a delivery thread beside the merge (one
    //   thread alone would leave a core idle for the whole delivery).
    // The merge checks each part's CRC-32C as well instead of a serial
    // SHA-256 of the whole entry: the CRCs were computed at commit from the
    // same bytes as the SHA-256, and the chunks' own SHA-256s are computed
    // anyway (see "Integrity" in docs/formats.md).
    const bool partCrcs = allPartsHaveCrc(parts);
    Delivery delivery;
    if (tee && partCrcs && teeFile) {
        copyParts(e, parts, *teeFile, teeBytes, job);   // throws naming a bad part: nothing was merged
        if (streamed && *streamed)
            (*streamed)();
        tee = nullptr;
    } else if (tee && partCrcs) {
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
        const int64_t epoch0 = gcEpoch(*catalog);
        const Sink* sink = attempt == 0 ? tee : nullptr;
        MergeAttempt m(*this, options.compressionLevel);
        try {
            Sha256 whole;
            uint64_t total = 0;
            size_t partIndex = 0;
            std::optional<File> part;
            uint64_t pos = 0;
            uint32_t crc = 0;
            // The parts in order, block by block; each part's size and
            // CRC-32C are checked when it is done.
            auto read = [&](char* block, size_t max) -> size_t {
                job.checkCancel();
                delivery.rethrowIfFailed();
                for (;;) {
                    if (partIndex == parts.size())
                        return 0;
                    const PartInfo& p = parts[partIndex];
                    if (!part) {
                        part = layout->openPart(e.id, p.index);
                        if (part->size() != p.size)
                            fail(part->path(), "part has " + std::to_string(part->size()) + " bytes, the catalog says "
                                                   + std::to_string(p.size));
                        pos = 0;
                        crc = 0;
                    }
                    if (pos < p.size)
                        break;
                    if (partCrcs && crc != *p.crc32c)
                        failPart(e, p);
                    part.reset();
                    ++partIndex;
                }
                const PartInfo& p = parts[partIndex];
                const size_t want = size_t(std::min<uint64_t>(max, p.size - pos));
                part->readAt(block, want, pos);
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
                total += want;
                job.setStepProgress(total, std::max<uint64_t>(e.size, 1));
                return want;
            };
            // The bytes are all read: checked against the commit's size and
            // CRC-32Cs or SHA-256 before anyone is told they are complete.
            auto atEnd = [&] {
                if (total != e.size || (!partCrcs && hexOf(whole.finish()) != e.sha256)) {
                    // Name the part when its CRC-32C tells which one changed.
                    for (const auto& p : parts)
                        if (auto problem = partProblem(e.id, e.key, p))
                            throw Error(*problem + " (entry '" + e.key + "'); nothing was merged");
                    fail(partsDir(e.id), "the parts of entry '" + e.key + "' no longer match the size and SHA-256 recorded at commit");
                }
                if (sink && streamed && *streamed)
                    (*streamed)();
            };
            m.chunk(options.chunker, read, atEnd);

            uint64_t appended = 0, chunkCount = 0;
            const uint64_t root = m.writeObjects(appended, chunkCount);
            // The reader has every byte before the entry is merged; a failed
            // delivery fails the merge as it did when it came first.
            delivery.finish();
            job.checkCancel();
            killPoint(killpoints::store::kMergeAppended);
            if (options.testHooks && options.testHooks->beforeMergeCommit)
                options.testHooks->beforeMergeCommit(e.id);

            Transaction tx(*catalog, Transaction::Immediate);
            if (gcEpoch(*catalog) != epoch0) {
                // A GC started after we began: objects we reused or appended may
                // lie below its split and be missing from its roots. Redo.
                throw RedoMerge{};   // the transaction rolls back
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
            catalog->prepare("UPDATE entries SET state='merged', root_offset=?2, merge_error=NULL WHERE id=?1")
                .bind(1, e.id)
                .bind(2, root)
                .run();
            m.insertChunkRows();
            tx.commit();
            killPoint(killpoints::store::kMergeRemove);
            removeParts(e.id);
            result.merged = true;
            result.chunks = chunkCount;
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
    } catch (const Cancelled& ex) {
        finishFlight(false, ex.what());
        throw;
    } catch (const std::exception& ex) {
        finishFlight(false, ex.what());
        d->recordMergeError(id, ex.what());
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
