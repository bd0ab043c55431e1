// Reads of a cache-server deployment: entries with their sizes from the
// files, uploads, an entry's parts, the activity check, and where a data dir
// keeps its halves. Writes live in ActionsMerge.cpp and ActionsEvict.cpp,
// verify in ActionsVerify.cpp, import in ActionsImport.cpp.
#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/SizeIndex.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/OutputFile.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <map>

#include <unistd.h>

namespace fs = std::filesystem;

namespace cs::actions {

int64_t nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string ago(int64_t ms)
{
    const int64_t s = std::max<int64_t>(0, ms / 1000);
    if (s < 120)
        return std::to_string(s) + " s";
    if (s < 7200)
        return std::to_string(s / 60) + " min";
    if (s < 172800)
        return std::to_string(s / 3600) + " h";
    return std::to_string(s / 86400) + " days";
}

bool isPlainFolderName(const std::string& name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos
           && name.find('\0') == std::string::npos;
}

const char* entryStateName(EntryState s)
{
    switch (s) {
    case EntryState::Unmerged: return "unmerged";
    case EntryState::MergeStarted: return "merge started";
    case EntryState::Merged: return "merged";
    case EntryState::PartsDeleted: return "parts deleted";
    }
    return "?";
}

std::optional<EntryState> entryStateFromName(std::string_view name)
{
    std::string w(name);
    std::replace(w.begin(), w.end(), '-', ' ');
    for (auto s : {EntryState::Unmerged, EntryState::MergeStarted, EntryState::Merged, EntryState::PartsDeleted})
        if (w == entryStateName(s))
            return s;
    return std::nullopt;
}

DataDirPaths resolveDataDir(const std::string& dataDir, const std::optional<std::string>& db,
                            const std::optional<std::string>& storage)
{
    std::error_code ec;
    DataDirPaths p;
    std::string dir = dataDir;
    if (!dataDir.empty() && fs::is_regular_file(dataDir, ec)) {
        // The sqlite.db itself (a GUI drop): its folder is the data dir.
        p.dbPath = dataDir;
        dir = fs::path(dataDir).parent_path().string();
        if (dir.empty())
            dir = ".";
    } else if (!dataDir.empty() && !fs::is_directory(dataDir, ec) && (!db || !storage)) {
        fail(dataDir, "no such data folder (expected sqlite.db and storage/ in it)");
    }
    if (db)
        p.dbPath = *db;
    else if (p.dbPath.empty())
        p.dbPath = dir + "/sqlite.db";
    if (storage) {
        p.storageDir = *storage;
    } else {
        // The server's default STORAGE_FILESYSTEM_PATH is .data/storage/filesystem;
        // deployments that set it to .data/storage have the folders right there.
        const std::string nested = dir + "/storage/filesystem";
        p.storageDir = fs::is_directory(nested, ec) ? nested : dir + "/storage";
    }
    if (!isPostgresLocation(p.dbPath) && !isMysqlLocation(p.dbPath) && !fs::exists(fs::symlink_status(p.dbPath, ec)))
        fail(p.dbPath, "no such database (the server keeps it at DB_SQLITE_PATH, .data/sqlite.db by default; "
                       "name it with --db)");
    if (!isBucketLocation(p.storageDir) && !fs::is_directory(p.storageDir, ec))
        fail(p.storageDir, "no such storage folder for the database " + p.dbPath
                               + " (the server keeps it at STORAGE_FILESYSTEM_PATH, .data/storage/filesystem by "
                                 "default; name it with --storage)");
    return p;
}

ActionsCache::ActionsCache(std::unique_ptr<ActionsCatalog> catalog, std::unique_ptr<ActionsStorage> storage)
    : catalog_(std::move(catalog)), storage_(std::move(storage))
{
}

ActionsCache::~ActionsCache() = default;

std::unique_ptr<ActionsCache> ActionsCache::open(const DataDirPaths& paths, bool writable)
{
    auto storage = openStorageAt(paths.storageDir, RemoteOptions{paths.endpoint, paths.region, paths.credentials});
    auto catalog = openCatalogAt(paths.dbPath, writable, paths.credentials);
    auto cache = std::make_unique<ActionsCache>(std::move(catalog), std::move(storage));
    cache->requireMatchingStorage();
    return cache;
}

// Doubt stops: a catalog whose first entries' folders are all absent from
// the storage was paired with the wrong storage (every entry would list as
// "parts deleted", every folder as an orphan). A sample of the first page
// in key order (at most kStorageSample listings) decides; one present
// folder, or an entry with no folder to look for, is enough.
void ActionsCache::requireMatchingStorage()
{
    constexpr size_t kStorageSample = 16;
    std::vector<std::string> folders;
    for (const auto& row : catalog_->entriesPage(std::nullopt, kStorageSample))
        if (row.location && isPlainFolderName(row.location->folderName))
            folders.push_back(row.location->folderName);
    if (folders.empty())
        return;
    std::vector<std::string> errors;
    const auto listings = storage_->listFolders(folders, errors);
    for (size_t i = 0; i < listings.size(); ++i)
        if (listings[i].exists || !errors[i].empty())
            return;
    fail(storage_->describe(), "holds none of the folders the database " + catalog_->describe() + " names (the first "
                                   + std::to_string(folders.size()) + " looked for, '" + folders.front()
                                   + "' among them); is it the storage of this server? Name it with --storage");
}

EntryState stateOf(const std::optional<int64_t>& mergeStartedAt, const std::optional<int64_t>& mergedAt,
                   const std::optional<int64_t>& partsDeletedAt)
{
    if (partsDeletedAt)
        return EntryState::PartsDeleted;
    if (mergedAt)
        return EntryState::Merged;
    if (mergeStartedAt)
        return EntryState::MergeStarted;
    return EntryState::Unmerged;
}

ActionsEntry entryFrom(const EntryRow& row)
{
    ActionsEntry e;
    e.id = row.id;
    e.key = row.key;
    e.version = row.version;
    e.scope = row.scope;
    e.repoId = row.repoId;
    e.updatedAtMs = row.updatedAtMs;
    e.locationId = row.locationId;
    if (row.location) {
        const LocationRow& l = *row.location;
        e.hasLocation = true;
        e.folderName = l.folderName;
        e.partCount = l.partCount;
        e.mergeStartedAtMs = l.mergeStartedAtMs;
        e.mergedAtMs = l.mergedAtMs;
        e.partsDeletedAtMs = l.partsDeletedAtMs;
        e.lastDownloadedAtMs = l.lastDownloadedAtMs;
        e.sizeBytes = l.sizeBytes;
        e.state = stateOf(l.mergeStartedAtMs, l.mergedAtMs, l.partsDeletedAtMs);
    }
    return e;
}

std::optional<pid_t> mergeTempWriter(const std::string& name)
{
    if (auto pid = OutputFile::tempWriterOf(name, "merged"))
        return pid;
    const std::string prefix = "merged.tmp-";
    if (name.rfind(prefix, 0) != 0)
        return std::nullopt;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '\0')
        return std::nullopt;
    return pid_t(pid);
}

bool isLiveMergeTemp(const std::string& name)
{
    const auto pid = mergeTempWriter(name);
    if (!pid || *pid == ::getpid())
        return false;
    return ::kill(*pid, 0) == 0 || errno == EPERM;
}

LocationRow locationOf(const ActionsEntry& e)
{
    LocationRow l;
    l.id = e.locationId;
    l.folderName = e.folderName;
    l.partCount = e.partCount;
    l.mergeStartedAtMs = e.mergeStartedAtMs;
    l.mergedAtMs = e.mergedAtMs;
    l.partsDeletedAtMs = e.partsDeletedAtMs;
    l.lastDownloadedAtMs = e.lastDownloadedAtMs;
    l.sizeBytes = e.sizeBytes;
    return l;
}

void applyListing(ActionsEntry& e, const FolderListing& l)
{
    e.partsPresent = l.parts.size();
    e.partBytes = 0;
    for (const auto& p : l.parts)
        e.partBytes += p.size;
    e.mergedPresent = l.mergedSize.has_value();
    e.size = e.merged() && l.mergedSize ? *l.mergedSize : e.partBytes;
}

FolderListing listOrError(ActionsStorage& storage, const std::string& folder, std::string& error)
{
    if (folder.empty()) {
        error = "the location names no folder";
        return {};
    }
    try {
        return storage.listFolder(folder);
    } catch (const Error& err) {
        error = err.what();
        return {};
    }
}

void ObjectReader::skip(uint64_t n)
{
    char buf[64 * 1024];
    while (n > 0) {
        const size_t got = read(buf, size_t(std::min<uint64_t>(n, sizeof buf)));
        if (got == 0)
            return;
        n -= got;
    }
}

std::vector<FolderListing> ActionsStorage::listFolders(const std::vector<std::string>& folders,
                                                      std::vector<std::string>& errors, Job* job)
{
    std::vector<FolderListing> out(folders.size());
    errors.assign(folders.size(), std::string());
    for (size_t i = 0; i < folders.size(); ++i) {
        if (job)
            job->checkCancel();
        out[i] = listOrError(*this, folders[i], errors[i]);
    }
    return out;
}

namespace {

// Entries of catalog rows, each folder listed once, up to the storage's
// parallelism at a time.
std::vector<ActionsEntry> withListings(ActionsStorage& storage, const std::vector<EntryRow>& rows, Job* job)
{
    std::vector<ActionsEntry> out;
    out.reserve(rows.size());
    std::vector<std::string> folders;
    std::vector<size_t> rowOf;
    for (size_t i = 0; i < rows.size(); ++i) {
        out.push_back(entryFrom(rows[i]));
        if (out.back().hasLocation) {
            folders.push_back(out.back().folderName);
            rowOf.push_back(i);
        }
    }
    std::vector<std::string> errors;
    const auto listings = storage.listFolders(folders, errors, job);
    for (size_t k = 0; k < folders.size(); ++k) {
        ActionsEntry& e = out[rowOf[k]];
        e.storageError = errors[k];
        applyListing(e, listings[k]);
        if (!listings[k].links.empty() && e.storageError.empty())
            e.storageError = storage.objectName(e.folderName, listings[k].links.front())
                             + ": is a symbolic link; cachescope never follows links inside the storage folder";
    }
    return out;
}

} // namespace

std::vector<ActionsEntry> ActionsCache::entries(Job* job)
{
    const auto rows = catalog_->entries();
    std::vector<ActionsEntry> out;
    out.reserve(rows.size());
    // In slices, so the progress moves and cancel is seen while the
    // storage lists (in parallel within a slice).
    constexpr size_t kSlice = 256;
    for (size_t i = 0; i < rows.size(); i += kSlice) {
        if (job) {
            job->checkCancel();
            job->setStepProgress(uint64_t(i), uint64_t(rows.size()));
        }
        const std::vector<EntryRow> slice(rows.begin() + long(i), rows.begin() + long(std::min(rows.size(), i + kSlice)));
        for (auto& e : withListings(*storage_, slice, job))
            out.push_back(std::move(e));
    }
    return out;
}

ActionsEntryPage ActionsCache::entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after,
                                           size_t limit, Job* job)
{
    if (!catalogServes(query)) {
        if (!sizeIndex().built())
            refreshIndex(job);
        return sizeIndex().page(query, after, limit);
    }
    ActionsEntryPage page;
    const auto rows = catalog_->entriesPage(query, after, limit);
    if (job)
        job->checkCancel();
    if (rows.size() == limit && !rows.empty())
        page.next = EntryCursor{rows.back().key, rows.back().version, rows.back().id, rows.back().updatedAtMs};
    page.entries = withListings(*storage_, rows, job);
    return page;
}

std::optional<ActionsEntry> ActionsCache::entry(const std::string& id)
{
    constexpr size_t kPage = 1000;
    std::optional<EntryCursor> after;
    for (;;) {
        const auto rows = catalog_->entriesPage(EntryQuery{}, after, kPage);
        for (const auto& row : rows)
            if (row.id == id)
                return withListings(*storage_, {row}, nullptr).front();
        if (rows.size() < kPage)
            return std::nullopt;
        after = EntryCursor{rows.back().key, rows.back().version, rows.back().id, rows.back().updatedAtMs};
    }
}

ActionsEntryPage ActionsCache::entriesPage(const std::optional<EntryCursor>& after, size_t limit, Job* job)
{
    return entriesPage(EntryQuery{}, after, limit, job);
}

uint64_t ActionsCache::forEachEntryPage(const EntryQuery& query, size_t pageSize,
                                        const std::function<void(std::vector<ActionsEntry>&)>& onPage, Job* job)
{
    uint64_t seen = 0;
    std::optional<EntryCursor> after;
    // The count only feeds the progress (time left); entries written while
    // the walk runs may make it a little off, never the walk itself.
    const uint64_t total = job ? catalog_->entryCount(query.keyContains) : 0;
    do {
        if (job) {
            job->checkCancel();
            job->setStepProgress(seen, std::max(total, seen));
        }
        ActionsEntryPage page = entriesPage(query, after, std::max<size_t>(pageSize, 1), job);
        seen += page.entries.size();
        if (!page.entries.empty())
            onPage(page.entries);
        after = std::move(page.next);
    } while (after);
    return seen;
}

uint64_t ActionsCache::entryCount(const std::string& keyContains)
{
    return catalog_->entryCount(keyContains);
}

uint64_t ActionsCache::entryCount(const EntryQuery& query)
{
    if (catalogServes(query))
        return catalog_->entryCount(query.keyContains);
    if (!sizeIndex().built())
        refreshIndex();
    return sizeIndex().count(query);
}

SizeIndex& ActionsCache::sizeIndex()
{
    if (!index_) {
        // The local folders of the data, which the index must stay out of.
        std::vector<std::string> local;
        const std::string db = catalog_->describe();
        if (!isPostgresLocation(db))
            local.push_back(fs::path(db).parent_path().string());
        if (!isBucketLocation(storage_->describe()))
            local.push_back(storage_->describe());
        index_ = std::make_unique<SizeIndex>(SizeIndex::pathFor(db, storage_->describe(), local));
    }
    return *index_;
}

IndexRefreshStats ActionsCache::refreshIndex(Job* job, bool full)
{
    return sizeIndex().refresh(*catalog_, *storage_, job, full);
}

std::vector<Finding> ActionsCache::verifyIndexed(Job& job)
{
    if (!sizeIndex().built())
        refreshIndex(&job);
    // The rows and listings both as the index holds them: the rows are read
    // from the server once per refresh, not again here.
    const auto rows = indexedCatalog(sizeIndex(), *catalog_);
    const auto view = indexedStorage(sizeIndex(), *storage_);
    return verifyData(*rows, *view, job);
}

std::vector<ActionsUpload> ActionsCache::uploads()
{
    const int64_t now = nowMs();
    std::vector<ActionsUpload> out;
    for (auto& row : catalog_->uploads()) {
        ActionsUpload u;
        u.row = std::move(row);
        std::string error;
        const FolderListing l = listOrError(*storage_, u.row.folderName, error);
        u.partsPresent = l.parts.size();
        for (const auto& p : l.parts)
            u.partBytes += p.size;
        u.ageMs = now - u.row.lastPartUploadedAtMs.value_or(u.row.createdAtMs);
        out.push_back(std::move(u));
    }
    return out;
}

std::vector<ActionsPart> ActionsCache::parts(const ActionsEntry& e, size_t maxMissing)
{
    std::string error;
    const FolderListing l = listOrError(*storage_, e.folderName, error);
    if (!error.empty())
        throw Error(error);
    std::vector<ActionsPart> out;
    out.reserve(l.parts.size() + std::min<size_t>(maxMissing, 1024));
    // Walks the present parts and the gaps between them; stops after
    // maxMissing gaps, so a claimed count of millions costs nothing.
    const uint64_t claimed = e.partCount > 0 ? uint64_t(e.partCount) : 0;
    uint64_t next = 0;
    size_t missing = 0;
    for (const auto& p : l.parts) {
        while (next < std::min(p.index, claimed) && missing < maxMissing) {
            out.push_back({next++, 0, false});
            ++missing;
        }
        out.push_back({p.index, p.size, true});
        next = std::max(next, p.index + 1);
    }
    while (next < claimed && missing < maxMissing) {
        out.push_back({next++, 0, false});
        ++missing;
    }
    std::sort(out.begin(), out.end(), [](const ActionsPart& a, const ActionsPart& b) { return a.index < b.index; });
    return out;
}

} // namespace cs::actions
