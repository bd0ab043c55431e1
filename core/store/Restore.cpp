// Restore: merged entries decode their chunks in parallel (pool threads,
// a bounded window per restore); a file output gets each chunk written at its
// position, one write at a time (SerialWrites), a sink gets them in order
// from the calling thread; the first restore of an unmerged entry streams its
// parts and merges them in the same pass (from a read-only store: streams
// them and leaves the merge to a writer).
#include "core/store/ChunkBuffers.h"
#include "core/store/StoreInternal.h"
#include "core/store/TaskPool.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/OutputFile.h"
#include "core/util/SerialWrites.h"
#include "core/util/Sha256.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>

namespace cs::store {

namespace {

// The last access only orders eviction: losing the newest few on a power
// cut is harmless, an fsync per restore is not (see Catalog::withoutFsync).
// Nor may it fail a restore: a read-only store or a full disk still restores.
void touch(Catalog& catalog, int64_t id)
{
    if (catalog.readOnly())
        return;
    try {
        catalog.withoutFsync([&] {
            Transaction tx(catalog, Transaction::Immediate);
            catalog.prepare("UPDATE entries SET last_access=?2 WHERE id=?1").bind(1, id).bind(2, nowSeconds()).run();
            tx.commit();
        });
    } catch (const Error&) {
    }
}

struct DecodeWindow {
    std::mutex mutex;
    std::condition_variable cv;
    // Per slot, the entry's largest chunk, allocated at the slot's first use
    // and not initialised: a std::string resized up zero-filled what the
    // decoder overwrites next (on average a third of each chunk). Pages are
    // touched only as chunks fill them.
    std::vector<ChunkBuffer> buffers;
    std::vector<char> done;      // per slot: the chunk in it is decoded (and written, for a file)
    std::exception_ptr error;
    TaskGroup group;
};

// Writes in order at the file's start: an unmerged entry's parts arrive in order.
Sink sequentialFileSink(int fd, uint64_t& filePos)
{
    return [fd, &filePos](const void* data, size_t size) {
        if (!pwriteAll(fd, data, size, filePos))
            failErrno("restore output", "write failed");
        filePos += size;
    };
}

} // namespace

void Store::Impl::restoreMerged(const EntryRow& e, int fd, const Sink* sink, uint64_t skip, Job& job,
                                 const std::string& outName)
{
    const std::vector<pack::ChildRef> chunks = chunkList(e.rootOffset);
    std::vector<uint64_t> positions(chunks.size());
    uint64_t total = 0;
    size_t largest = 1;
    for (size_t i = 0; i < chunks.size(); ++i) {
        positions[i] = total;
        total += chunks[i].logicalSize;
        largest = std::max<size_t>(largest, chunks[i].logicalSize);
    }
    if (total != e.size)
        failAt(pack->dir(), e.rootOffset, "the root of entry '" + e.key + "' holds " + std::to_string(total)
                                              + " bytes, the catalog says " + std::to_string(e.size));
    // No serial SHA-256 of the whole entry here: it capped a restore at the
    // speed of one core hashing (~1.8 GB/s). Every frame's XXH64 is checked
    // by zstd while decoding, every size against the node and the catalog;
    // verifyChunks adds each chunk's SHA-256 on the decoding threads.
    const bool verify = options.verifyChunks;
    // One slot more than threads: a decoded chunk may wait in the write queue
    // while every thread decodes the next one.
    const size_t window = size_t(std::max(2, threads() + 2));
    DecodeWindow w;
    w.buffers.resize(window);
    w.done.assign(window, 0);
    auto markDone = [&w](size_t slot) {
        std::lock_guard g(w.mutex);
        w.done[slot] = 1;
        w.cv.notify_all();
    };
    // A file output: each decoded chunk is offered to the writes; its slot is
    // done (and reusable) once it is written. Concurrent pwrite(2)s to one
    // file would only queue on the kernel's inode lock (see SerialWrites).
    SerialWrites writes(
        window,
        [fd, &outName](const char* p, size_t size, uint64_t at) {
            if (!pwriteAll(fd, p, size, at))
                failErrno(outName, "write of " + std::to_string(size) + " bytes at offset " + std::to_string(at)
                                       + " failed");
        },
        markDone);
    size_t nextSubmit = 0;
    auto submit = [&](size_t i) {
        const size_t slot = i % window;
        w.done[slot] = 0;
        w.group.add(1);
        TaskPool::shared().submit([this, &w, &writes, &markDone, &chunks, &positions, i, slot, fd, verify, largest] {
            bool offered = false;
            try {
                ChunkBuffer& buf = w.buffers[slot];
                if (!buf.data())
                    buf = ChunkBuffer(largest);
                buf.size = chunks[i].logicalSize;
                pack::ObjectHeader h;
                const uint32_t n = pack->readChunkInto(chunks[i].offset, buf.data(), buf.size, &h);
                if (n != chunks[i].logicalSize)
                    failAt(pack->dir(), chunks[i].offset, "chunk holds " + std::to_string(n) + " bytes, its node says "
                                                              + std::to_string(chunks[i].logicalSize));
                if (verify && Sha256::of(buf.data(), buf.size) != h.sha256)
                    failAt(pack->dir(), chunks[i].offset, "chunk does not match its SHA-256 (run 'cachescope-cli store fsck')");
                if (fd >= 0 && buf.size > 0) {
                    // Marks the slot done once written (by this thread or the one writing).
                    offered = true;
                    writes.offer(slot, buf.data(), buf.size, positions[i]);
                }
            } catch (...) {
                std::lock_guard g(w.mutex);
                if (!w.error)
                    w.error = std::current_exception();
                offered = false;
            }
            if (!offered)
                markDone(slot);
            w.group.finish(1);
        });
    };
    try {
        uint64_t emitted = 0;
        for (size_t i = 0; i < chunks.size(); ++i) {
            while (nextSubmit < chunks.size() && nextSubmit < i + window)
                submit(nextSubmit++);
            const size_t slot = i % window;
            {
                std::unique_lock lock(w.mutex);
                w.cv.wait(lock, [&] { return w.done[slot] != 0; });
                if (w.error)
                    std::rethrow_exception(w.error);
            }
            const ChunkBuffer& buf = w.buffers[slot];
            if (sink && emitted + buf.size > skip) {
                const uint64_t from = skip > emitted ? skip - emitted : 0;
                (*sink)(buf.data() + from, buf.size - from);
            }
            emitted += buf.size;
            job.checkCancel();
            job.setStepProgress(emitted, std::max<uint64_t>(total, 1));
        }
    } catch (...) {
        w.group.waitAll();
        throw;
    }
    w.group.waitAll();
}

namespace {

// An unmerged entry of a store this process may not write (a read-only
// mount, another user's files): its bytes come from the parts, checked as a
// merge checks them (each part's size and CRC-32C; the entry's SHA-256 when
// a part predates the CRCs), and the merge is left to a writer. Nothing is
// created or changed: no append.lock, no pack append, no catalog write.
void streamUnmergedFromParts(Store::Impl& d, const EntryRow& e, const Sink& out, Job& job)
{
    const auto parts = d.partRows(e.id);
    if (parts.size() != e.partCount)
        throw Error(d.dir + ": entry '" + e.key + "' lists " + std::to_string(parts.size()) + " parts, expected "
                    + std::to_string(e.partCount));
    const bool crcs = std::all_of(parts.begin(), parts.end(), [](const PartInfo& p) { return bool(p.crc32c); });
    Sha256 whole;
    const Sink hashed = [&](const void* data, size_t size) {
        whole.update(data, size);
        out(data, size);
    };
    uint64_t streamed = 0;
    try {
        d.streamParts(e, parts, crcs ? out : hashed, &streamed, job);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception&) {
        // A writer may have merged it and deleted the parts under us:
        // continue from the pack where the stream stopped.
        auto now = d.entry(e.id);
        if (!now || now->state != EntryState::Merged || now->sha256 != e.sha256)
            throw;
        d.restoreMerged(*now, -1, &out, streamed, job);
        return;
    }
    if (!crcs && Sha256::hex(whole.finish()) != e.sha256)
        fail(d.partsDir(e.id), "the parts of entry '" + e.key + "' do not match its SHA-256 (run 'cachescope-cli store fsck')");
}

// Streams an entry: merged -> parallel decode; unmerged -> stream the parts
// while merging (or wait for a merge already running in this process).
// deliver (optional) is called once every byte went out and matched the
// entry's SHA-256: for an unmerged entry that is before the merge has
// compressed its last chunks, synced the pack and committed, so the reader
// gets its file at the speed of reading the parts, not of the commit.
// deliverFirst: into a regular file (fd), the parts go first and the merge
// after (the caller returns at delivery); else beside the merge.
RestoreResult streamEntry(Store::Impl& d, const EntryRow& e0, int fd, const Sink* sink, Job& job,
                          const std::function<void()>* deliver = nullptr, const std::string& outName = "restore output",
                          bool deliverFirst = false)
{
    RestoreResult r;
    r.entry = e0;
    r.bytes = e0.size;
    if (e0.state == EntryState::Uploading)
        throw Error(d.dir + ": entry '" + e0.key + "' is still uploading");
    touch(*d.catalog, e0.id);
    if (e0.state == EntryState::Merged) {
        d.restoreMerged(e0, fd, fd >= 0 ? nullptr : sink, 0, job, outName);
        return r;
    }
    if (d.catalog->readOnly()) {
        uint64_t filePos = 0;
        const Sink fileSink = fd >= 0 ? sequentialFileSink(fd, filePos) : Sink();
        streamUnmergedFromParts(d, e0, fd >= 0 ? fileSink : *sink, job);
        r.mergeSkipped = true;
        return r;
    }
    std::shared_ptr<InFlightMerge> flight;
    bool mine = false, elsewhere = false;
    {
        std::lock_guard g(d.inflightMutex);
        if (auto it = d.inflight.find(e0.id); it != d.inflight.end()) {
            flight = it->second;
        } else if (d.mergeLockHeld(e0.id)) {
            elsewhere = true;
        } else {
            flight = std::make_shared<InFlightMerge>();
            d.inflight[e0.id] = flight;
            mine = true;
        }
    }
    if (elsewhere) {
        // A merge of it runs in another process (one that a get or a put
        // left behind it): the parts stream beside it, as from a read-only
        // store, instead of waiting for its whole merge. It deletes them only
        // after its commit, and a stream that loses them goes on from the pack.
        uint64_t filePos = 0;
        const Sink fileSink = fd >= 0 ? sequentialFileSink(fd, filePos) : Sink();
        streamUnmergedFromParts(d, e0, fd >= 0 ? fileSink : *sink, job);
        r.mergeRunningElsewhere = true;
        return r;
    }
    if (!mine) {
        r.waitedForMerge = true;
        {
            std::unique_lock lock(flight->mutex);
            flight->done.wait(lock, [&] { return flight->finished; });
        }
        auto e = d.entry(e0.id);
        if (!e)
            throw Error(d.dir + ": entry '" + e0.key + "' was removed during the restore");
        if (e->state != EntryState::Merged)
            throw Error(d.dir + ": entry '" + e0.key + "' could not be merged: " + flight->error);
        d.restoreMerged(*e, fd, fd >= 0 ? nullptr : sink, 0, job, outName);
        return r;
    }
    auto finishFlight = [&](bool ok, const std::string& err) {
        {
            std::lock_guard g(d.inflightMutex);
            d.inflight.erase(e0.id);
        }
        std::lock_guard lock(flight->mutex);
        flight->finished = true;
        flight->ok = ok;
        flight->error = err;
        flight->done.notify_all();
    };
    uint64_t streamed = 0;
    uint64_t filePos = 0;
    const Sink fileSink = sequentialFileSink(fd, filePos);
    const Sink* out = fd >= 0 ? &fileSink : sink;
    bool delivered = false;
    const std::function<void()> onStreamed = [&] {
        if (deliver && *deliver)
            (*deliver)();
        delivered = true;
    };
    try {
        // A caller that acts at delivery (deliverFirst: `store get` returns
        // there) gets the parts first, copied in the kernel; one that waits
        // for the merge anyway gets them beside it, which ends sooner.
        const PartsTarget target{fd, &filePos};
        const MergeResult m =
            d.mergeEntry(e0, job, out, &streamed, &onStreamed, fd >= 0 && deliverFirst ? &target : nullptr);
        r.mergedNow = m.merged;
        finishFlight(true, {});
        return r;
    } catch (const Cancelled&) {
        finishFlight(false, "cancelled");
        throw;
    } catch (const std::exception& ex) {
        finishFlight(false, ex.what());
        const auto completeButUnmerged = [&](const std::string& why) {
            return d.dir + ": entry '" + e0.key + "' was restored completely, but merging it failed (it stays unmerged): "
                   + why;
        };
        // The restore is what the reader asked for; a merge that fails behind
        // it (a full disk, say) is a warning kept in the row.
        if (delivered) {
            d.recordMergeError(e0.id, ex.what());
            r.mergeError = completeButUnmerged(ex.what());
            return r;
        }
        auto e = d.entry(e0.id);
        if (e && e->state == EntryState::Unmerged && e->sha256 == e0.sha256) {
            // It failed before every byte went out: the rest comes from the
            // parts, after what the reader already has. When the parts fail
            // too (a changed part), the merge's own sentence is the error.
            d.recordMergeError(e0.id, ex.what());
            const std::exception_ptr mergeFailure = std::current_exception();
            uint64_t skip = streamed;
            const Sink rest = [&](const void* data, size_t size) {
                if (skip >= size) {
                    skip -= size;
                    return;
                }
                (*out)(static_cast<const char*>(data) + skip, size - size_t(skip));
                skip = 0;
            };
            try {
                streamUnmergedFromParts(d, e0, rest, job);
            } catch (const Cancelled&) {
                throw;
            } catch (const std::exception&) {
                std::rethrow_exception(mergeFailure);
            }
            r.mergeError = completeButUnmerged(ex.what());
            return r;
        }
        // Another process may have merged it and deleted the parts under us:
        // continue from the pack where the stream stopped.
        if (!e || e->state != EntryState::Merged || e->sha256 != e0.sha256)
            throw;
        d.restoreMerged(*e, -1, out, streamed, job);
        return r;
    }
}

} // namespace

RestoreResult Store::restoreEntry(int64_t id, const Sink& sink, Job& job)
{
    auto e = d->entry(id);
    if (!e)
        throw Error(d->dir + ": entry " + std::to_string(id) + " does not exist");
    return streamEntry(*d, *e, -1, &sink, job);
}

RestoreResult Store::restoreEntryToFile(int64_t id, const std::string& outPath, Job& job,
                                        const std::function<void()>& onDelivered)
{
    auto e = d->entry(id);
    if (!e)
        throw Error(d->dir + ": entry " + std::to_string(id) + " does not exist");
    // A regular file is replaced on success only; a device, FIFO or "-" is
    // written in place (OutputFile). The output is made final (truncated,
    // synced, renamed into place) as soon as every byte went out and matched
    // the SHA-256: for an unmerged entry, before the merge commits.
    // Never into this store: `S/pack/0.suffix` or `S/catalog.db`, spelled any way.
    OutputFile out = OutputFile::open(outPath, [&job] { job.checkCancel(); }, &d->layout->root());
    bool delivered = false;
    const std::function<void()> deliver = [&] {
        if (out.kind() == OutputFile::Kind::Replace)
            out.file().truncate(e->size);
        out.commit();
        delivered = true;
        if (onDelivered)
            onDelivered();
    };
    RestoreResult r;
    if (out.seekable()) {
        // Workers pwrite chunks at their positions: a temp file or a block device.
        r = streamEntry(*d, *e, out.fd(), nullptr, job, &deliver, outPath, bool(onDelivered));
    } else {
        Sink sink = [&](const void* data, size_t size) { out.writeAll(data, size); };
        r = streamEntry(*d, *e, -1, &sink, job, &deliver);
    }
    if (!delivered)
        deliver();
    return r;
}

RestoreResult Store::restoreToFile(const RestoreRequest& request, const std::string& outPath, Job& job,
                                   const std::function<void(const RestoreResult&)>& onDelivered)
{
    const auto match = lookup(request);
    if (!match)
        throw Error(d->dir + ": no entry matches key '" + request.key + "'"
                    + (request.restoreKeys.empty() ? "" : " or its restore keys") + " in version '" + request.version
                    + "' and scope '" + request.scope + "'");
    std::function<void()> delivered;
    if (onDelivered)
        delivered = [&] {
            RestoreResult now;
            now.entry = match->first;
            now.matchedBy = match->second;
            now.bytes = match->first.size;
            onDelivered(now);
        };
    RestoreResult r = restoreEntryToFile(match->first.id, outPath, job, delivered);
    r.matchedBy = match->second;
    return r;
}

} // namespace cs::store
