#include "core/actions-cache/ActionsCache.h"

#include "core/jobs/Job.h"
#include "core/store/Catalog.h"
#include "core/store/Store.h"
#include "core/util/Error.h"
#include "core/util/File.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;

namespace cs::actions {

namespace {

int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::optional<int64_t> optI64(const store::Statement& s, int col)
{
    if (s.isNull(col))
        return std::nullopt;
    return s.i64(col);
}

uint64_t fileSizeOr0(const std::string& path)
{
    std::error_code ec;
    const auto n = fs::file_size(path, ec);
    return ec ? 0 : uint64_t(n);
}

} // namespace

ActionsCache::~ActionsCache() = default;

std::unique_ptr<ActionsCache> ActionsCache::open(const std::string& dbPath, const std::string& storageDir)
{
    if (!fs::is_regular_file(dbPath))
        fail(dbPath, "no such SQLite file");
    if (!fs::is_directory(storageDir))
        fail(storageDir, "no such storage folder");
    std::unique_ptr<ActionsCache> c(new ActionsCache());
    c->dbPath_ = dbPath;
    c->storageDir_ = storageDir;
    c->db_ = std::make_unique<store::Catalog>(dbPath, store::OpenMode::ReadOnly);
    for (const char* table : {"cache_entries", "storage_locations", "uploads"}) {
        auto s = c->db_->prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
        s.bindText(1, table);
        if (!s.step())
            fail(dbPath, std::string("has no table '") + table + "': not a github-actions-cache-server database");
    }
    return c;
}

std::string ActionsCache::folderOf(const std::string& folderName) const
{
    // Folder names come from the database: refuse anything that is not one plain name.
    if (folderName.empty() || folderName == "." || folderName == ".." || folderName.find('/') != std::string::npos
        || folderName.find('\0') != std::string::npos)
        fail(dbPath_, "storage location folder name '" + folderName + "' is not a plain folder name");
    return storageDir_ + "/" + folderName;
}

std::string ActionsCache::partPath(const ActionsEntry& e, uint32_t index) const
{
    return folderOf(e.folderName) + "/parts/" + std::to_string(index);
}

std::string ActionsCache::mergedPath(const ActionsEntry& e) const
{
    return folderOf(e.folderName) + "/merged";
}

std::vector<ActionsEntry> ActionsCache::entries() const
{
    auto lock = db_->lock();
    auto s = db_->prepare(
        "SELECT e.id, e.key, e.version, e.updatedAt, e.locationId, l.folderName, l.partCount, l.mergeStartedAt, "
        "l.mergedAt, l.partsDeletedAt, l.lastDownloadedAt FROM cache_entries e JOIN storage_locations l "
        "ON l.id = e.locationId ORDER BY e.updatedAt DESC");
    std::vector<ActionsEntry> out;
    while (s.step()) {
        ActionsEntry e;
        e.id = s.text(0);
        e.key = s.text(1);
        e.version = s.text(2);
        e.updatedAtMs = s.i64(3);
        e.locationId = s.text(4);
        e.folderName = s.text(5);
        const int64_t parts = s.i64(6);
        if (parts < 0 || parts > 10'000'000)
            fail(dbPath_, "entry '" + e.key + "' claims " + std::to_string(parts) + " parts");
        e.partCount = uint32_t(parts);
        e.mergeStartedAtMs = optI64(s, 7);
        e.mergedAtMs = optI64(s, 8);
        e.partsDeletedAtMs = optI64(s, 9);
        e.lastDownloadedAtMs = optI64(s, 10);
        out.push_back(std::move(e));
    }
    lock.unlock();
    for (auto& e : out) {
        try {
            if (e.merged()) {
                e.size = fileSizeOr0(mergedPath(e));
            } else {
                for (uint32_t i = 0; i < e.partCount; ++i)
                    e.size += fileSizeOr0(partPath(e, i));
            }
        } catch (const Error&) {
            e.size = 0; // a hostile folder name: verify() reports it
        }
    }
    return out;
}

std::vector<PendingUpload> ActionsCache::pendingUploads() const
{
    auto lock = db_->lock();
    auto s = db_->prepare("SELECT id, key, version, folderName, createdAt FROM uploads ORDER BY createdAt");
    std::vector<PendingUpload> out;
    while (s.step()) {
        PendingUpload u{s.i64(0), s.text(1), s.text(2), s.text(3), s.i64(4), 0};
        out.push_back(std::move(u));
    }
    lock.unlock();
    for (auto& u : out) {
        std::error_code ec;
        try {
            for (const auto& f : fs::directory_iterator(folderOf(u.folderName) + "/parts", ec))
                if (f.is_regular_file())
                    ++u.partsPresent;
        } catch (const Error&) {
        }
    }
    return out;
}

std::vector<ActionsProblem> ActionsCache::verify(Job& job) const
{
    std::vector<ActionsProblem> problems;
    const auto all = entries();
    for (size_t n = 0; n < all.size(); ++n) {
        job.checkCancel();
        job.setStepProgress(n, all.size());
        const ActionsEntry& e = all[n];
        try {
            if (e.merged()) {
                if (!fs::is_regular_file(mergedPath(e)))
                    problems.push_back({e.key, mergedPath(e), "marked merged but the merged file is missing"});
            } else if (e.partsDeletedAtMs) {
                problems.push_back({e.key, folderOf(e.folderName), "parts were deleted but the entry is not merged"});
            } else {
                if (e.partCount == 0)
                    problems.push_back({e.key, folderOf(e.folderName), "storage location has no parts"});
                for (uint32_t i = 0; i < e.partCount; ++i)
                    if (!fs::is_regular_file(partPath(e, i)))
                        problems.push_back({e.key, partPath(e, i), "part " + std::to_string(i) + " of "
                                                                       + std::to_string(e.partCount) + " is missing"});
            }
        } catch (const Error& err) {
            problems.push_back({e.key, dbPath_, err.what()});
        }
    }
    return problems;
}

std::vector<ActionsMergeResult> ActionsCache::merge(const std::vector<std::string>& entryIds, Job& job)
{
    std::vector<ActionsEntry> selected;
    for (auto& e : entries()) {
        const bool wanted = entryIds.empty() || std::find(entryIds.begin(), entryIds.end(), e.id) != entryIds.end();
        if (wanted)
            selected.push_back(e);
    }
    uint64_t total = 0, done = 0;
    for (const auto& e : selected)
        if (!e.merged())
            total += e.size;
    std::vector<ActionsMergeResult> results;
    std::vector<char> buf(1 << 20);
    for (const auto& e : selected) {
        if (e.merged()) {
            results.push_back({e.key, e.size, false});
            continue;
        }
        if (e.partsDeletedAtMs)
            fail(folderOf(e.folderName), "entry '" + e.key + "' has no parts left to merge");
        const std::string merged = mergedPath(e);
        const std::string tmp = merged + ".tmp";
        uint64_t bytes = 0;
        try {
            File out = File::create(tmp);
            for (uint32_t i = 0; i < e.partCount; ++i) {
                File in = File::openRead(partPath(e, i));
                for (;;) {
                    job.checkCancel();
                    const size_t n = in.readSome(buf.data(), buf.size());
                    if (n == 0)
                        break;
                    out.writeAll(buf.data(), n);
                    bytes += n;
                    done += n;
                    job.setStepProgress(done, total);
                }
            }
            out.sync();
            out.close();
            if (::rename(tmp.c_str(), merged.c_str()) != 0)
                failErrno(merged, "cannot move the merged file into place");
            syncDirectory(folderOf(e.folderName));
        } catch (...) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw;
        }
        const int64_t now = nowMs();
        store::Catalog writer(dbPath_, store::OpenMode::ForeignWrite);
        {
            store::Transaction tx(writer, store::Transaction::Immediate);
            auto s = writer.prepare("UPDATE storage_locations SET mergeStartedAt = COALESCE(mergeStartedAt, ?), "
                                  "mergedAt = ? WHERE id = ?");
            s.bind(1, now).bind(2, now).bindText(3, e.locationId).run();
            tx.commit();
        }
        {
            store::Transaction tx(writer, store::Transaction::Immediate);
            auto s = writer.prepare("UPDATE storage_locations SET partsDeletedAt = ? WHERE id = ?");
            s.bind(1, now).bindText(2, e.locationId).run();
            tx.commit();
        }
        std::error_code ec;
        fs::remove_all(folderOf(e.folderName) + "/parts", ec);
        results.push_back({e.key, bytes, true});
    }
    return results;
}

std::vector<ActionsEntry> ActionsCache::evict(const ActionsEvictPolicy& policy, Job& job)
{
    const int64_t now = nowMs();
    std::vector<ActionsEntry> victims;
    for (auto& e : entries()) {
        bool go = false;
        if (policy.olderThanSeconds && e.updatedAtMs < now - int64_t(*policy.olderThanSeconds * 1000))
            go = true;
        const int64_t used = e.lastDownloadedAtMs.value_or(e.updatedAtMs);
        if (policy.unusedForSeconds && used < now - int64_t(*policy.unusedForSeconds * 1000))
            go = true;
        if (go)
            victims.push_back(e);
    }
    if (policy.dryRun)
        return victims;
    store::Catalog writer(dbPath_, store::OpenMode::ForeignWrite);
    for (size_t i = 0; i < victims.size(); ++i) {
        job.checkCancel();
        job.setStepProgress(i, victims.size());
        const auto& e = victims[i];
        {
            store::Transaction tx(writer, store::Transaction::Immediate);
            writer.prepare("DELETE FROM cache_entries WHERE id = ?").bindText(1, e.id).run();
            writer.prepare("DELETE FROM storage_locations WHERE id = ?").bindText(1, e.locationId).run();
            tx.commit();
        }
        std::error_code ec;
        fs::remove_all(folderOf(e.folderName), ec);
    }
    return victims;
}

uint64_t ActionsCache::importInto(store::Store& target, const std::string& scope, uint64_t partSize, bool noMerge,
                                  Job& job)
{
    if (partSize == 0 || partSize > store::kMaxPartBytes)
        throw Error("import: part size must be between 1 byte and 256 MiB");
    const auto all = entries();
    uint64_t total = 0, done = 0, imported = 0;
    for (const auto& e : all)
        total += e.size;
    std::vector<char> buf(static_cast<size_t>(partSize));
    for (const auto& e : all) {
        job.checkCancel();
        std::vector<std::string> sources;
        if (e.merged())
            sources.push_back(mergedPath(e));
        else
            for (uint32_t i = 0; i < e.partCount; ++i)
                sources.push_back(partPath(e, i));
        const int64_t upload = target.reserve(e.key, e.version, scope);
        try {
            // Re-cut the server's parts into partSize parts, as a build tool would upload them.
            uint32_t index = 0;
            size_t filled = 0;
            for (const auto& src : sources) {
                File in = File::openRead(src);
                for (;;) {
                    job.checkCancel();
                    const size_t n = in.readSome(buf.data() + filled, buf.size() - filled);
                    if (n == 0)
                        break;
                    filled += n;
                    done += n;
                    if (filled == buf.size()) {
                        target.writePart(upload, index++, buf.data(), filled);
                        filled = 0;
                    }
                    job.setStepProgress(done, total);
                }
            }
            if (filled > 0 || index == 0)
                target.writePart(upload, index++, buf.data(), filled);
            const store::EntryRow row = target.commit(upload, index);
            if (!noMerge)
                target.merge(row.id, job);
        } catch (...) {
            target.abortUpload(upload);
            throw;
        }
        ++imported;
    }
    return imported;
}

} // namespace cs::actions
