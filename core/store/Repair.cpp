// What fsck reports beside entries and orphaned parts, and what
// `store fsck --repair` does about it (removeOrphans): leftovers of an
// interrupted GC in pack/, stale uploads, dedup rows naming objects the pack
// no longer has. Each repair is checked first: pack leftovers only after the
// control file and the current generation's files open (Pack::leftovers),
// under the GC lock; dedup rows only under the GC lock too, so no GC moves
// or deletes rows meanwhile.
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>


namespace cs::store {

namespace {

std::string hoursText(double seconds)
{
    return std::to_string(int64_t(seconds / 3600)) + " h";
}

} // namespace

std::vector<FsckProblem> Store::Impl::findPackLeftovers() const
{
    std::vector<FsckProblem> found;
    // A GC in progress writes files of the next generation: not leftovers.
    // A read-only store cannot take the lock: report what is there.
    std::optional<FileLock> gc;
    try {
        gc.emplace(pack->tryLockGc());
        if (!gc->held())
            return found;
    } catch (const Error&) {
    }
    const uint64_t current = pack->generation()->control.generation;
    for (const auto& name : pack->leftovers()) {
        const std::string path = pack->filePath(name);
        FsckProblem p;
        p.path = path;
        p.bytes = pack->folder().sizeOf(name);
        p.message = path + ": left by an interrupted GC (the current generation is " + std::to_string(current)
                    + "), " + std::to_string(*p.bytes) + " bytes; store fsck --repair or the next store gc removes it";
        found.push_back(std::move(p));
    }
    return found;
}

std::vector<EntryRow> Store::Impl::staleUploads(double now) const
{
    auto lock = catalog->lock();
    auto q = catalog->prepare(std::string("SELECT ") + kEntryColumns
                              + " FROM entries WHERE state='uploading' AND created < ?1 ORDER BY id");
    q.bind(1, now - kStaleUploadSeconds);
    std::vector<EntryRow> rows;
    while (q.step())
        rows.push_back(rowFrom(q));
    return rows;
}

double Store::Impl::lastUploadActivity(const EntryRow& upload) const
{
    auto seconds = [](const struct stat& st) { return double(st.st_mtim.tv_sec) + double(st.st_mtim.tv_nsec) / 1e9; };
    double last = upload.created;
    try {
        const auto folder = layout->partsOf(upload.id);
        if (!folder)
            return last;
        struct stat st {};
        if (::fstat(folder->fd(), &st) == 0)
            last = std::max(last, seconds(st));
        for (const auto& c : folder->list())
            if (c.kind == Folder::Kind::File && ::fstatat(folder->fd(), c.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
                last = std::max(last, seconds(st));
    } catch (const Error&) {
        // a parts folder we cannot read (a link): its reservation time counts
    }
    return last;
}

FsckProblem staleUploadProblem(const EntryRow& e, double now)
{
    FsckProblem p;
    p.entryId = e.id;
    p.key = e.key;
    p.message = "upload reserved " + hoursText(now - e.created)
                + " ago was never committed (a stale upload, older than "
                + hoursText(kStaleUploadSeconds) + "); store fsck --repair or store evict --older-than removes it";
    return p;
}

std::vector<Store::Impl::DedupRow> Store::Impl::badDedupRows(Job& job) const
{
    std::vector<DedupRow> rows;
    {
        auto lock = catalog->lock();
        auto q = catalog->prepare("SELECT sha256, offset, raw_size FROM chunks ORDER BY offset");
        while (q.step())
            rows.push_back({q.blob(0), uint64_t(q.i64(1)), uint64_t(q.i64(2)), {}});
    }
    std::vector<DedupRow> bad;
    for (auto& r : rows) {
        job.checkCancel();
        try {
            const pack::ObjectHeader h = pack->readHeader(r.offset);
            if (h.kind != pack::ObjectKind::Chunk)
                r.why = "dedup index row points at a node, not a chunk";
            else if (r.sha256.size() != 32 || std::memcmp(r.sha256.data(), h.sha256.data(), 32) != 0
                     || h.rawSize != r.rawSize)
                r.why = "dedup index row does not match the chunk header at its offset";
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& ex) {
            r.why = std::string("dedup index row: ") + ex.what();
        }
        if (r.why.empty())
            continue;
        // A GC deletes the rows of the chunks it collects before it swaps
        // generations: a row gone since it was read was not wrong.
        auto lock = catalog->lock();
        auto again = catalog->prepare("SELECT 1 FROM chunks WHERE sha256=?1 AND offset=?2");
        again.bindBlob(1, r.sha256.data(), r.sha256.size()).bind(2, r.offset);
        if (again.step())
            bad.push_back(std::move(r));
    }
    return bad;
}

void Store::Impl::repairBeyondParts(OrphanRemoval& out, Job& job)
{
    // Stale uploads: their row goes first (re-checked in the transaction, so
    // an upload committed meanwhile stays), then their parts.
    const double now = nowSeconds();
    for (const auto& e : staleUploads(now)) {
        job.checkCancel();
        FsckProblem p = staleUploadProblem(e, now);
        p.path = partsDir(e.id);
        {
            Transaction tx(*catalog, Transaction::Immediate);
            catalog->prepare("DELETE FROM entries WHERE id=?1 AND state='uploading' AND created < ?2")
                .bind(1, e.id)
                .bind(2, now - kStaleUploadSeconds)
                .run();
            const bool gone = catalog->changes() > 0;
            tx.commit();
            if (!gone)
                continue;
        }
        removeParts(e.id);
        out.removed.push_back(p);
    }
    // Pack repairs need the GC lock: a running GC owns the pack's files and rows.
    FileLock gc = pack->tryLockGc();
    if (!gc.held())
        return;
    for (const auto& name : pack->leftovers()) {
        const std::string path = pack->filePath(name);
        FsckProblem p;
        p.path = path;
        p.bytes = pack->folder().sizeOf(name);
        p.message = path + ": left by an interrupted GC";
        bool removed = false;
        try {
            removed = pack->folder().unlink(name);   // a link there goes itself, never its target
        } catch (const Error&) {
        }
        if (removed) {
            out.bytes += *p.bytes;
            out.removed.push_back(std::move(p));
        }
    }
    // Dedup rows naming objects the pack does not have: only an index, so
    // deleting them loses nothing (later merges append those chunks again).
    for (const auto& r : badDedupRows(job)) {
        Transaction tx(*catalog, Transaction::Immediate);
        catalog->prepare("DELETE FROM chunks WHERE sha256=?1 AND offset=?2")
            .bindBlob(1, r.sha256.data(), r.sha256.size())
            .bind(2, r.offset)
            .run();
        tx.commit();
        FsckProblem p;
        p.offset = r.offset;
        p.path = catalog->path();
        p.message = r.why + " (deleted the row)";
        out.removed.push_back(std::move(p));
    }
}

} // namespace cs::store
