// Upload: reserve an entry, receive its parts in any order from any thread,
// commit once all of 0..n-1 are there.
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Crc32c.h"
#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/InputFile.h"
#include "core/util/Units.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fcntl.h>

namespace fs = std::filesystem;

namespace cs::store {

namespace {

bool isPartName(const std::string& name, uint32_t& index) { return StoreLayout::parsePartIndex(name, index); }

EntryRow requireUploading(const Store::Impl& d, int64_t id)
{
    auto e = d.entry(id);
    if (!e)
        throw Error(d.dir + ": upload " + std::to_string(id) + " does not exist");
    if (e->state != EntryState::Uploading)
        throw Error(d.dir + ": upload " + std::to_string(id) + " is already committed (state "
                    + entryStateName(e->state) + ")");
    return *e;
}

} // namespace

int64_t Store::reserve(const std::string& key, const std::string& version, const std::string& scope)
{
    checkKey(key);
    checkKey(version, "version");
    checkKey(scope, "scope");
    Transaction tx(*d->catalog, Transaction::Immediate);
    const int64_t id = d->insertUpload(key, version, scope, nowSeconds());
    const std::string setAside = d->setAsideStaleParts(id);
    tx.commit();
    d->dropSetAside(setAside);
    return id;
}

int64_t Store::Impl::insertUpload(const std::string& key, const std::string& version, const std::string& scope,
                                  double created) const
{
    auto last = catalog->prepare(
        "SELECT max(coalesce((SELECT max(id) FROM entries), 0), "
        "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key='last_entry_id'), 0))");
    const int64_t id = (last.step() ? last.i64(0) : 0) + 1;
    catalog->prepare("INSERT INTO entries(id, key, version, scope, state, created) VALUES(?1, ?2, ?3, ?4, 'uploading', ?5)")
        .bind(1, id)
        .bindText(2, key)
        .bindText(3, version)
        .bindText(4, scope)
        .bind(5, created)
        .run();
    catalog->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES('last_entry_id', ?1)").bindText(1, std::to_string(id)).run();
    return id;
}

std::string Store::Impl::setAsideStaleParts(int64_t id) const
{
    // While the caller's write transaction keeps other processes from taking ids.
    const Folder& parts = layout->parts();
    const std::string stale = StoreLayout::partsName(id);
    if (parts.kindOf(stale) == Folder::Kind::Missing)
        return {};
    const std::string setAside = StoreLayout::orphanName(stale);
    parts.rename(stale, setAside);
    return setAside;
}

void Store::Impl::dropSetAside(const std::string& name) const
{
    if (name.empty())
        return;
    try {
        layout->parts().removeTree(name);
    } catch (const Error&) {
        // an orphan by its name: fsck --repair removes it
    }
}

std::vector<int64_t> Store::Impl::deleteReplaced(const std::string& key, const std::string& version,
                                                 const std::string& scope, int64_t keep, const std::string& repo) const
{
    std::vector<int64_t> replaced;
    auto old = catalog->prepare("SELECT id FROM entries WHERE key=?1 AND version=?2 AND scope=?3 AND repo=?5 AND "
                                "state<>'uploading' AND id<>?4");
    old.bindText(1, key).bindText(2, version).bindText(3, scope).bind(4, keep).bindText(5, repo);
    while (old.step())
        replaced.push_back(old.i64(0));
    for (int64_t r : replaced) {
        catalog->prepare("DELETE FROM entries WHERE id=?1").bind(1, r).run();
        catalog->prepare("DELETE FROM parts WHERE entry_id=?1").bind(1, r).run();
    }
    return replaced;
}

void Store::Impl::removeReplaced(const std::vector<int64_t>& ids) const
{
    // The old entries' rows are gone; their parts go after the commit (a
    // crash now leaves orphans for removeOrphans).
    for (int64_t r : ids) {
        killPoint(killpoints::store::kReplaceRemove);
        removeParts(r);
    }
}

void Store::writePart(int64_t id, uint32_t index, const void* data, size_t size)
{
    if (size > kMaxPartBytes)
        throw Error(d->dir + ": part " + std::to_string(index) + " of upload " + std::to_string(id) + " has "
                    + std::to_string(size) + " bytes, more than the " + std::to_string(kMaxPartBytes >> 20)
                    + " MiB limit");
    if (index >= 100000000u)
        throw Error(d->dir + ": part index " + std::to_string(index) + " is out of range");
    requireUploading(*d, id);
    d->layout->writePart(id, index, data, size);
}

namespace {

// What a commit records of each part, taken as the bytes went by (putFile,
// putStream) or in the commit's own pass over the parts (commit()).
struct PartsSeen {
    std::vector<uint64_t> sizes;
    std::vector<uint32_t> crcs;
    uint64_t total = 0;
    std::string sha256;   // hex, of parts 0..n-1 in order
};

// parts/<id> holds exactly parts 0..n-1 (n = expected, else highest + 1),
// or an error that names the part; nothing is committed then.
uint32_t checkPartsPresent(const std::string& dir, const std::optional<Folder>& folder,
                           std::optional<uint32_t> expectedParts)
{
    std::vector<bool> have;
    if (folder) {
        for (const auto& f : folder->list()) {
            uint32_t index = 0;
            if (f.kind != Folder::Kind::File || !isPartName(f.name, index))
                continue;
            if (have.size() <= index)
                have.resize(size_t(index) + 1, false);
            have[index] = true;
        }
    }
    const uint32_t n = expectedParts ? *expectedParts : uint32_t(have.size());
    if (have.size() > n)
        throw Error(dir + ": part " + std::to_string(have.size() - 1) + " is beyond the " + std::to_string(n)
                    + " parts expected; nothing was committed");
    for (uint32_t i = 0; i < n; ++i)
        if (i >= have.size() || !have[i])
            throw Error(dir + ": part " + std::to_string(i) + " of " + std::to_string(n)
                        + " is missing; nothing was committed");
    return n;
}

} // namespace

EntryRow Store::commit(int64_t id, std::optional<uint32_t> expectedParts)
{
    const EntryRow e = requireUploading(*d, id);
    const std::optional<Folder> folder = d->layout->partsOf(id);
    const uint32_t n = checkPartsPresent(d->partsDir(id), folder, expectedParts);
    killPoint(killpoints::store::kPartsWritten);

    // Hash the parts in order (outside the transaction: it can take a
    // while); each is fdatasync'd in the same pass, as it was written
    // without (StoreLayout::writePart), and the folder once at the end.
    PartsSeen seen;
    seen.sizes.resize(n);
    seen.crcs.resize(n, 0);
    Sha256 sha;
    std::vector<char> buf(1 << 20);
    for (uint32_t i = 0; i < n; ++i) {
        File f = d->layout->openPart(id, i);
        uint64_t pos = 0;
        for (;;) {
            const size_t got = f.readSomeAt(buf.data(), buf.size(), pos);
            if (got == 0)
                break;
            sha.update(buf.data(), got);
            seen.crcs[i] = crc32c(seen.crcs[i], buf.data(), got);
            pos += got;
        }
        f.syncData();
        seen.sizes[i] = pos;
        seen.total += pos;
    }
    seen.sha256 = hexOf(sha.finish());
    if (folder)
        folder->sync();
    return d->commitSeen(e, folder, seen.sizes, seen.crcs, seen.total, seen.sha256);
}

EntryRow Store::Impl::commitSeen(const EntryRow& e, const std::optional<Folder>& folder,
                                 const std::vector<uint64_t>& sizes, const std::vector<uint32_t>& crcs,
                                 uint64_t total, const std::string& hex) const
{
    // The parts are durable here (the caller synced them and their folder):
    // only now may a committed row name them.
    const int64_t id = e.id;
    const uint32_t n = uint32_t(sizes.size());
    std::vector<int64_t> replaced;
    {
        Transaction tx(*catalog, Transaction::Immediate);
        auto st = catalog->prepare("SELECT state FROM entries WHERE id=?1");
        st.bind(1, id);
        if (!st.step() || st.text(0) != "uploading")
            throw Error(dir + ": upload " + std::to_string(id) + " was committed or removed meanwhile");
        replaced = deleteReplaced(e.key, e.version, e.scope, id, e.repo);
        catalog->prepare("DELETE FROM parts WHERE entry_id=?1").bind(1, id).run();
        auto ins = catalog->prepare("INSERT INTO parts(entry_id, idx, size, crc32c) VALUES(?1, ?2, ?3, ?4)");
        for (uint32_t i = 0; i < n; ++i) {
            ins.reset();
            ins.bind(1, id).bind(2, i).bind(3, sizes[i]).bind(4, crcs[i]).run();
        }
        const double now = nowSeconds();
        // An import keeps the creation time its source gave it.
        catalog->prepare("UPDATE entries SET state='unmerged', size=?2, sha256=?3, part_count=?4, "
                         "created=CASE WHEN origin IS NULL THEN ?5 ELSE created END, committed=?5 WHERE id=?1")
            .bind(1, id)
            .bind(2, total)
            .bindText(3, hex)
            .bind(4, n)
            .bind(5, now)
            .run();
        tx.commit();
    }
    removeReplaced(replaced);
    // Stray temp files of parts written twice.
    if (folder) {
        for (const auto& f : folder->list()) {
            uint32_t index = 0;
            if (!isPartName(f.name, index)) {
                try {
                    folder->removeTree(f.name);
                } catch (const Error&) {
                }
            }
        }
    }
    return *entry(id);
}

void Store::setImportedIdentity(int64_t id, const std::string& repo, double created, const std::string& origin)
{
    checkKey(repo, "repo");
    Transaction tx(*d->catalog, Transaction::Immediate);
    requireUploading(*d, id);
    d->catalog->prepare("UPDATE entries SET repo=?2, created=?3, origin=?4 WHERE id=?1")
        .bind(1, id)
        .bindText(2, repo)
        .bind(3, created)
        .bindText(4, origin)
        .run();
    tx.commit();
}

std::optional<EntryRow> Store::findImported(const std::string& origin) const
{
    auto q = d->catalog->prepare(std::string("SELECT ") + kEntryColumns
                                 + " FROM entries WHERE origin=?1 AND state<>'uploading' LIMIT 1");
    q.bindText(1, origin);
    if (!q.step())
        return std::nullopt;
    return rowFrom(q);
}

void Store::abortUpload(int64_t id)
{
    // Parts first: on a full disk, the space they free is what lets the
    // row's delete commit. A crash in between leaves an 'uploading' row
    // without parts: a stale upload that fsck --repair reaps.
    if (auto e = d->entry(id); e && e->state == EntryState::Uploading)
        d->removeParts(id);
    Transaction tx(*d->catalog, Transaction::Immediate);
    d->catalog->prepare("DELETE FROM entries WHERE id=?1 AND state='uploading'").bind(1, id).run();
    tx.commit();
}

namespace {

[[noreturn]] void failTooLarge(const std::string& path, uint64_t maxBytes)
{
    fail(path, "is larger than the " + formatSize(maxBytes) + " limit (--max-size); nothing was stored");
}

// The input of a put, open (InputFile: a FIFO without a writer waits in
// readSome, where a cancel is seen, never in open): a regular file's size
// checked against maxBytes (unset or 0: no limit).
InputFile openChecked(const std::string& path, std::optional<uint64_t> maxBytes, Job& job)
{
    InputFile in = InputFile::open(path, [&job] { job.checkCancel(); });
    if (in.regular() && maxBytes.value_or(0) && in.size() > *maxBytes)
        failTooLarge(path, *maxBytes);
    return in;
}

void abortQuietly(Store& store, int64_t id)
{
    // The upload's own error is the one to report; a failed abort leaves
    // a stale upload for fsck --repair.
    try {
        store.abortUpload(id);
    } catch (const std::exception&) {
    }
}

} // namespace

namespace {

// Parts 0..n-1 written without a sync (StoreLayout::writePart): after the
// "parts written" kill point, each fdatasync'd and the folder fsynced once,
// before the commit's row may name them.
void syncWrittenParts(const Folder& folder, uint32_t n)
{
    killPoint(killpoints::store::kPartsWritten);
    for (uint32_t i = 0; i < n; ++i)
        folder.openFile(StoreLayout::partName(i), O_RDONLY).syncData();
    folder.sync();
}

} // namespace

EntryRow Store::putStream(const std::string& key, InputFile& in, Job& job, const std::string& version,
                          const std::string& scope, uint64_t partSize, uint64_t maxBytes)
{
    const int64_t id = reserve(key, version, scope);
    try {
        const Folder folder = d->layout->partsOfOrCreate(id);
        // One part in memory: filled from the stream, hashed, written, reused.
        std::vector<char> buf(static_cast<size_t>(partSize));
        std::vector<uint64_t> sizes;
        std::vector<uint32_t> crcs;
        Sha256 sha;
        uint64_t total = 0;
        bool end = false;
        while (!end) {
            size_t filled = 0;
            while (filled < buf.size()) {
                const size_t n = in.readSome(buf.data() + filled, buf.size() - filled);
                if (n == 0) {
                    end = true;
                    break;
                }
                filled += n;
                if (maxBytes && total + filled > maxBytes)
                    failTooLarge(in.path(), maxBytes);
            }
            if (filled == 0)
                break;
            if (sizes.size() >= 100000000u - 1)
                fail(in.path(), "needs more than 100000000 parts; use a larger part size");
            sha.update(buf.data(), filled);
            crcs.push_back(crc32c(0, buf.data(), filled));
            StoreLayout::writePartIn(folder, uint32_t(sizes.size()), buf.data(), filled);
            sizes.push_back(filled);
            total += filled;
            job.setStepProgress(0.0, formatSize(total) + " received");
        }
        if (total == 0)
            fail(in.path(), "gave no bytes (an empty or closed stream); nothing was stored");
        job.setStepProgress(1.0);
        job.checkCancel();
        const std::optional<Folder> listed = d->layout->partsOf(id);
        const uint32_t n = checkPartsPresent(d->partsDir(id), listed, uint32_t(sizes.size()));
        syncWrittenParts(folder, n);
        return d->commitSeen(requireUploading(*d, id), listed, sizes, crcs, total, hexOf(sha.finish()));
    } catch (...) {
        abortQuietly(*this, id);
        throw;
    }
}

EntryRow Store::putFile(const std::string& key, const std::string& path, Job& job, const std::string& version,
                        const std::string& scope, uint64_t partSize, int threads, std::optional<uint64_t> maxBytesOption)
{
    if (partSize == 0 || partSize > kMaxPartBytes)
        throw Error("part size " + std::to_string(partSize) + " is outside 1 byte .. 256 MiB");
    InputFile in = openChecked(path, maxBytesOption, job);
    // What cannot seek, or tells no size (a pipe, FIFO, terminal, character
    // device): read in order. Its size would read as 0: storing that as an
    // empty entry lost the data (issue 9).
    if (!in.regular())
        return putStream(key, in, job, version, scope, partSize, maxBytesOption.value_or(kMaxStreamBytes));
    const uint64_t size = in.size();
    const uint64_t count64 = (size + partSize - 1) / partSize;
    if (count64 >= 100000000u)
        fail(path, "would need " + std::to_string(count64) + " parts; use a larger part size");
    const uint32_t count = uint32_t(count64);
    const int64_t id = reserve(key, version, scope);
    try {
        const Folder folder = d->layout->partsOfOrCreate(id);
        // Each byte is read once. The writers take the parts in order, each
        // into a slot of a ring: read, then CRC-32C and write (no sync: the
        // parts are synced together before the commit); this thread hashes
        // the slots in order as they are read, beside the writes, so the
        // commit needs no second pass over the parts. A slot goes to the
        // part `slots` further on once it is both written and hashed, so
        // memory stays (threads + 2) parts whatever the file's size.
        const int t = std::max(1, std::min<int>(threads, int(std::max<uint32_t>(count, 1))));
        const uint32_t slots = std::min<uint32_t>(std::max<uint32_t>(count, 1), uint32_t(t) + 2);
        struct Slot {
            std::vector<char> buf;
            size_t size = 0;
            uint32_t nextPart = 0;   // the part that may take the slot next
            bool busy = false, read = false, written = false, hashed = false;
        };
        std::vector<Slot> ring(slots);
        for (uint32_t k = 0; k < slots; ++k)
            ring[k].nextPart = k;
        std::vector<uint64_t> sizes(count);
        std::vector<uint32_t> crcs(count, 0);
        std::mutex mutex;
        std::condition_variable changed;
        uint32_t next = 0;
        bool stop = false;
        std::exception_ptr error;
        auto release = [&](Slot& s, uint32_t part) {   // under mutex
            if (s.written && s.hashed) {
                s.busy = false;
                s.nextPart = part + slots;
                changed.notify_all();
            }
        };
        auto failWith = [&](std::exception_ptr e) {
            std::lock_guard g(mutex);
            if (!error)
                error = e;
            stop = true;
            changed.notify_all();
        };
        auto writer = [&] {
            try {
                for (;;) {
                    uint32_t i = 0;
                    Slot* s = nullptr;
                    {
                        std::unique_lock g(mutex);
                        if (stop || next >= count)
                            return;
                        i = next++;
                        s = &ring[i % slots];
                        changed.wait(g, [&] { return stop || (!s->busy && s->nextPart == i); });
                        if (stop)
                            return;
                        s->busy = true;
                        s->read = s->written = s->hashed = false;
                    }
                    if (job.isCancelled())
                        throw Cancelled();
                    const uint64_t off = uint64_t(i) * partSize;
                    const size_t n = size_t(std::min<uint64_t>(partSize, size - off));
                    if (s->buf.size() < n)
                        s->buf.resize(n);
                    in.file().readAt(s->buf.data(), n, off);
                    s->size = n;
                    {
                        std::lock_guard g(mutex);
                        s->read = true;
                        changed.notify_all();
                    }
                    crcs[i] = crc32c(0, s->buf.data(), n);
                    StoreLayout::writePartIn(folder, i, s->buf.data(), n);
                    sizes[i] = n;
                    std::lock_guard g(mutex);
                    s->written = true;
                    release(*s, i);
                }
            } catch (...) {
                failWith(std::current_exception());
            }
        };
        std::vector<std::thread> pool;
        for (int k = 0; k < t; ++k)
            pool.emplace_back(writer);
        Sha256 sha;
        try {
            for (uint32_t i = 0; i < count; ++i) {
                Slot& s = ring[i % slots];
                {
                    std::unique_lock g(mutex);
                    while (!stop && !(s.busy && s.nextPart == i && s.read)) {
                        changed.wait_for(g, std::chrono::milliseconds(20));
                        if (job.isCancelled() && !stop) {
                            error = std::make_exception_ptr(Cancelled());
                            stop = true;
                            changed.notify_all();
                        }
                    }
                    if (stop)
                        break;
                }
                sha.update(s.buf.data(), s.size);
                std::lock_guard g(mutex);
                s.hashed = true;
                release(s, i);
                job.setStepProgress(i + 1, count);
            }
        } catch (...) {
            failWith(std::current_exception());
        }
        for (auto& th : pool)
            th.join();
        if (error)
            std::rethrow_exception(error);
        job.setStepProgress(1.0);
        job.checkCancel();
        uint64_t total = 0;
        for (uint64_t n : sizes)
            total += n;
        const std::optional<Folder> listed = d->layout->partsOf(id);
        checkPartsPresent(d->partsDir(id), listed, count);
        syncWrittenParts(folder, count);
        return d->commitSeen(requireUploading(*d, id), listed, sizes, crcs, total, hexOf(sha.finish()));
    } catch (...) {
        abortQuietly(*this, id);
        throw;
    }
}

PutResult Store::putMerged(const std::string& key, const std::string& path, Job& job, const std::string& version,
                           const std::string& scope, std::optional<uint64_t> maxBytes)
{
    checkKey(key);
    checkKey(version, "version");
    checkKey(scope, "scope");
    InputFile in = openChecked(path, maxBytes, job);
    if (!in.regular())
        fail(in.path(), "is not a regular file; a stream is put as parts (putFile), then merged");
    return d->mergeFile(in.file(), in.size(), key, version, scope, job);
}

} // namespace cs::store
