#include "core/actions-cache/SizeIndex.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/actions-cache/KeyFamily.h"
#include "core/actions-cache/SizeIndexCodec.h"
#include "core/jobs/Job.h"
#include "core/util/Sqlite.h"
#include "core/util/Error.h"
#include "core/util/Sha256.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <set>

namespace fs = std::filesystem;

namespace cs::actions {

namespace {

using Catalog = sqlite::Database;
using sqlite::OpenMode;
using sqlite::Statement;
using sqlite::Transaction;
using sizeindex::encodeParts;
using sizeindex::joinNames;
using sizeindex::splitNames;

constexpr int kIndexSchema = 1;
constexpr int64_t kChangeSlackMs = 5 * 60 * 1000;
constexpr int64_t kRacyMs = 2000;
constexpr size_t kIdPage = 10000;
constexpr size_t kRowBatch = 500;
constexpr size_t kListBatch = 256;

const char* const kSchema = R"(
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS folders(name TEXT PRIMARY KEY, stamp TEXT, racy INTEGER NOT NULL, listed_ms INTEGER NOT NULL,
  present INTEGER NOT NULL, has_parts INTEGER NOT NULL, merged_size INTEGER, parts TEXT NOT NULL,
  part_count INTEGER NOT NULL, part_bytes INTEGER NOT NULL, strays BLOB NOT NULL, links BLOB NOT NULL,
  error TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries(id TEXT PRIMARY KEY, key TEXT NOT NULL, version TEXT NOT NULL, scope TEXT NOT NULL,
  repo_id TEXT NOT NULL, updated_at INTEGER NOT NULL, location_id TEXT NOT NULL, has_location INTEGER NOT NULL,
  folder TEXT NOT NULL, part_count INTEGER NOT NULL, merge_started_at INTEGER, merged_at INTEGER,
  parts_deleted_at INTEGER, last_downloaded_at INTEGER, state INTEGER NOT NULL, last_used INTEGER NOT NULL,
  family TEXT NOT NULL, size INTEGER NOT NULL DEFAULT 0, parts_present INTEGER NOT NULL DEFAULT 0,
  part_bytes INTEGER NOT NULL DEFAULT 0, merged_present INTEGER NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '');
CREATE TEMP TABLE IF NOT EXISTS dirty(folder TEXT PRIMARY KEY) WITHOUT ROWID;
)";

// The entries' orders and the folder lookup. A full scan drops them, fills
// the table and makes them again: one sort per index instead of a random
// B-tree insert into seven of them per row (100,000 rows: 18-27 s, mostly
// pread and pwrite of SQLite pages, at load 6).
const char* const kEntryIndexes = R"(
CREATE INDEX IF NOT EXISTS entries_size ON entries(size, id);
CREATE INDEX IF NOT EXISTS entries_parts ON entries(part_count, id);
CREATE INDEX IF NOT EXISTS entries_state ON entries(state, id);
CREATE INDEX IF NOT EXISTS entries_last_used ON entries(last_used, id);
CREATE INDEX IF NOT EXISTS entries_updated ON entries(updated_at, id);
CREATE INDEX IF NOT EXISTS entries_key ON entries(key, version, id);
CREATE INDEX IF NOT EXISTS entries_folder ON entries(folder);
)";
const char* const kDropEntryIndexes = R"(
DROP INDEX IF EXISTS entries_size; DROP INDEX IF EXISTS entries_parts; DROP INDEX IF EXISTS entries_state;
DROP INDEX IF EXISTS entries_last_used; DROP INDEX IF EXISTS entries_updated; DROP INDEX IF EXISTS entries_key;
DROP INDEX IF EXISTS entries_folder;
)";

// The modification time (ms) the stamp starts with: "sec.nsec/...".
int64_t stampMtimeMs(const std::string& stamp)
{
    char* end = nullptr;
    const long long sec = std::strtoll(stamp.c_str(), &end, 10);
    long long nsec = 0;
    if (*end == '.')
        nsec = std::strtoll(end + 1, nullptr, 10);
    return int64_t(sec) * 1000 + int64_t(nsec / 1000000);
}

void bindOpt(Statement& s, int i, const std::optional<int64_t>& v)
{
    if (v)
        s.bind(i, *v);
    else
        s.bindNull(i);
}

std::string cacheHome()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return x;
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache";
    fail("$HOME", "is not set, so there is no cache folder for the size index (set XDG_CACHE_HOME)");
}

bool isInside(const fs::path& inner, const fs::path& outer)
{
    auto i = inner.begin();
    for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
        if (o->empty() && std::next(o) == outer.end())
            break; // a trailing separator
        if (i == inner.end() || *i != *o)
            return false;
    }
    return true;
}

} // namespace

std::string SizeIndex::pathFor(const std::string& catalogName, const std::string& storageName,
                               const std::vector<std::string>& localData)
{
    std::error_code ec;
    auto canonical = [&ec](const std::string& p) {
        if (p.find("://") != std::string::npos || p.find('=') != std::string::npos)
            return p;
        const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
        return ec ? p : c.string();
    };
    const std::string identity = "catalog " + canonical(catalogName) + "\nstorage " + canonical(storageName) + "\n";
    const Digest d = Sha256::of(identity.data(), identity.size());
    const fs::path dir = fs::weakly_canonical(fs::path(cacheHome()) / "cachescope" / "actions-index", ec);
    for (const auto& data : localData) {
        if (data.empty() || data.find("://") != std::string::npos)
            continue;
        const fs::path c = fs::weakly_canonical(fs::absolute(data, ec), ec);
        if (!ec && isInside(dir, c))
            fail(dir.string(), "is inside the server's data (" + c.string()
                                   + "); cachescope never writes there: set XDG_CACHE_HOME to a folder outside it");
    }
    return (dir / (Sha256::hex(d).substr(0, 32) + ".db")).string();
}

SizeIndex::SizeIndex(std::string path) : path_(std::move(path))
{
    std::error_code ec;
    fs::create_directories(fs::path(path_).parent_path(), ec);
    if (ec)
        fail(fs::path(path_).parent_path().string(), "cannot create the size index's folder: " + ec.message());
    db_ = std::make_unique<Catalog>(path_, OpenMode::Create);
    auto lk = db_->lock();
    int schema = 0;
    {
        auto has = db_->prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'");
        if (has.step()) {
            auto v = db_->prepare("SELECT v FROM meta WHERE k='schema'");
            schema = v.step() ? std::atoi(v.text(0).c_str()) : -1;
        }
    }
    if (schema != 0 && schema != kIndexSchema)   // a cache: rebuilt, never migrated
        db_->exec("DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS folders; DROP TABLE IF EXISTS entries;");
    db_->exec(kSchema);
    db_->exec(kEntryIndexes);
    db_->prepare("INSERT OR IGNORE INTO meta VALUES('schema', ?1)").bindText(1, std::to_string(kIndexSchema)).run();
}

SizeIndex::~SizeIndex() = default;

std::optional<int64_t> SizeIndex::lastScanMs()
{
    auto lk = db_->lock();
    auto s = db_->prepare("SELECT v FROM meta WHERE k='last_scan_ms'");
    if (!s.step())
        return std::nullopt;
    return std::strtoll(s.text(0).c_str(), nullptr, 10);
}

bool SizeIndex::built()
{
    return lastScanMs().has_value();
}

// One refresh: its statements, prepared once, and what it has touched.
struct SizeIndex::Refresh {
    Catalog& db;
    ActionsCatalog& catalog;
    ActionsStorage& storage;
    Job* job;
    IndexRefreshStats stats;
    Statement upsertEntry, deleteEntry, markDirty, upsertFolder, deleteFolder, folderOf;

    Refresh(Catalog& d, ActionsCatalog& c, ActionsStorage& s, Job* j)
        : db(d), catalog(c), storage(s), job(j),
          upsertEntry(d.prepare("INSERT OR REPLACE INTO entries(id, key, version, scope, repo_id, updated_at, "
                                "location_id, has_location, folder, part_count, merge_started_at, merged_at, "
                                "parts_deleted_at, last_downloaded_at, state, last_used, family) "
                                "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)")),
          deleteEntry(d.prepare("DELETE FROM entries WHERE id = ?1 RETURNING folder")),
          markDirty(d.prepare("INSERT OR IGNORE INTO dirty VALUES(?1)")),
          upsertFolder(d.prepare("INSERT OR REPLACE INTO folders VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)")),
          deleteFolder(d.prepare("DELETE FROM folders WHERE name = ?1")),
          folderOf(d.prepare("SELECT stamp, racy FROM folders WHERE name = ?1"))
    {
    }

    void cancelPoint()
    {
        if (job)
            job->checkCancel();
    }

    void dirty(const std::string& folder)
    {
        markDirty.reset();
        markDirty.bindText(1, folder).run();
    }

    void putEntry(const EntryRow& row)
    {
        const ActionsEntry e = entryFrom(row);
        Statement& s = upsertEntry;
        s.reset();
        s.bindText(1, e.id).bindText(2, e.key).bindText(3, e.version).bindText(4, e.scope).bindText(5, e.repoId);
        s.bind(6, e.updatedAtMs).bindText(7, e.locationId).bind(8, int64_t(e.hasLocation)).bindText(9, e.folderName);
        s.bind(10, e.partCount);
        bindOpt(s, 11, e.mergeStartedAtMs);
        bindOpt(s, 12, e.mergedAtMs);
        bindOpt(s, 13, e.partsDeletedAtMs);
        bindOpt(s, 14, e.lastDownloadedAtMs);
        s.bind(15, int64_t(e.state)).bind(16, e.lastDownloadedAtMs.value_or(e.updatedAtMs));
        s.bindText(17, keyFamily(e.key));
        s.run();
        ++stats.rowsRead;
        if (e.hasLocation && !stats.full)   // a full scan marks every folder at its end
            dirty(e.folderName);
    }

    void removeEntry(const std::string& id)
    {
        deleteEntry.reset();
        deleteEntry.bindText(1, id);
        if (deleteEntry.step()) {
            const std::string folder = deleteEntry.text(0);
            deleteEntry.reset();
            if (!folder.empty())
                dirty(folder);
        }
        ++stats.entriesDeleted;
    }

    void putFolder(const std::string& name, const std::optional<std::string>& stamp, int64_t listedMs,
                   const FolderListing& l, const std::string& error)
    {
        uint64_t partBytes = 0;
        for (const auto& p : l.parts)
            partBytes += p.size;
        const bool racy = stamp && listedMs - stampMtimeMs(*stamp) < kRacyMs;
        if (!l.exists && error.empty()) {
            deleteFolder.reset();
            deleteFolder.bindText(1, name).run();
        } else {
            Statement& s = upsertFolder;
            s.reset();
            s.bindText(1, name);
            if (stamp)
                s.bindText(2, *stamp);
            else
                s.bindNull(2);
            s.bind(3, int64_t(racy)).bind(4, listedMs).bind(5, int64_t(l.exists)).bind(6, int64_t(l.hasPartsFolder));
            if (l.mergedSize)
                s.bind(7, *l.mergedSize);
            else
                s.bindNull(7);
            const std::string strays = joinNames(l.strays), links = joinNames(l.links);
            s.bindText(8, encodeParts(l.parts)).bind(9, uint64_t(l.parts.size())).bind(10, partBytes);
            s.bindBlob(11, strays.data(), strays.size()).bindBlob(12, links.data(), links.size()).bindText(13, error);
            s.run();
        }
        ++stats.foldersListed;
        dirty(name);
    }

    // Lists these folders (their stamps taken first) into the index.
    void listInto(const std::vector<std::string>& names)
    {
        for (size_t i = 0; i < names.size(); i += kListBatch) {
            cancelPoint();
            const std::vector<std::string> batch(names.begin() + long(i),
                                                 names.begin() + long(std::min(names.size(), i + kListBatch)));
            std::vector<std::optional<std::string>> stamps;
            for (const auto& n : batch) {
                stamps.push_back(storage.hasFolderStamps() ? storage.folderStamp(n) : std::nullopt);
                stats.foldersStamped += storage.hasFolderStamps();
            }
            const int64_t listedMs = nowMs();
            std::vector<std::string> errors;
            const auto listings = storage.listFolders(batch, errors, job);
            for (size_t k = 0; k < batch.size(); ++k)
                putFolder(batch[k], stamps[k], listedMs, listings[k], errors[k]);
        }
    }

    void fullScan()
    {
        stats.full = true;
        db.exec("DELETE FROM entries; DELETE FROM folders;");
        db.exec(kDropEntryIndexes);   // made again after applyDirty (refresh)
        uint64_t total = catalog.entryCount();
        uint64_t done = 0;
        std::optional<EntryCursor> after;
        for (;;) {
            cancelPoint();
            if (job)
                job->setStepProgress(0.5 * double(done) / double(std::max<uint64_t>(total, 1)));
            const auto rows = catalog.entriesPage(after, 1000);
            for (const auto& r : rows)
                putEntry(r);
            done += rows.size();
            if (rows.size() < 1000)
                break;
            after = EntryCursor{rows.back().key, rows.back().version, rows.back().id, rows.back().updatedAtMs};
        }
        if (job)
            job->setStepProgress(0.5);
        if (storage.hasFolderStamps()) {
            const auto names = storage.folders();
            for (size_t i = 0; i < names.size(); i += kListBatch) {
                if (job)
                    job->setStepProgress(0.5 + 0.45 * double(i) / double(names.size()));
                listInto(std::vector<std::string>(names.begin() + long(i),
                                                  names.begin() + long(std::min(names.size(), i + kListBatch))));
            }
        } else {
            const int64_t listedMs = nowMs();
            storage.forEachFolder(
                [&](const std::string& name, const FolderListing& l, const std::string& error) {
                    putFolder(name, std::nullopt, listedMs, l, error);
                },
                job);
        }
    }

    void rescan(int64_t lastScan)
    {
        // Rows changed since the last scan.
        for (const auto& r : catalog.entriesChangedSince(lastScan - kChangeSlackMs))
            putEntry(r);
        if (job)
            job->setStepProgress(0.2);
        // Ids: deleted rows, and rows the change query cannot see (written
        // with an old stamp, a restored backup). The catalog's ids come in
        // its primary key's order, whatever its collation (a page is an
        // index range on the server, not a sort of the table), so nothing
        // here compares ids: each page is looked up in the index (unseen:
        // not there) and noted in a temporary table, and the index's ids
        // not noted are the deleted rows. The table is SQLite's temp store
        // (a file past the page cache): bounded memory at any size.
        std::vector<std::string> unseen;
        db.exec("CREATE TEMP TABLE IF NOT EXISTS seen_ids (id TEXT PRIMARY KEY) WITHOUT ROWID");
        db.exec("DELETE FROM temp.seen_ids");
        {
            auto held = db.prepare("SELECT 1 FROM entries WHERE id = ?1");
            auto note = db.prepare("INSERT OR IGNORE INTO temp.seen_ids (id) VALUES (?1)");
            std::string after;
            for (;;) {
                cancelPoint();
                const auto ids = catalog.entryIdsAfter(after, kIdPage);
                stats.idsRead += ids.size();
                for (const auto& id : ids) {
                    held.reset();
                    held.bindText(1, id);
                    if (!held.step())
                        unseen.push_back(id);
                    held.reset();
                    note.reset();
                    note.bindText(1, id).run();
                }
                if (ids.size() < kIdPage)
                    break;
                after = ids.back();
            }
        }
        // The deleted rows, kIdPage at a time (removed ones no longer match).
        for (auto s = db.prepare("SELECT id FROM entries WHERE id NOT IN (SELECT id FROM temp.seen_ids) LIMIT ?1");;) {
            cancelPoint();
            std::vector<std::string> gone;
            s.reset();
            s.bind(1, int64_t(kIdPage));
            while (s.step())
                gone.push_back(s.text(0));
            s.reset();
            for (const auto& id : gone)
                removeEntry(id);
            if (gone.size() < kIdPage)
                break;
        }
        db.exec("DELETE FROM temp.seen_ids");
        // Rows held as merge started: the server's reset leaves no stamp.
        {
            auto s = db.prepare("SELECT id FROM entries WHERE state = ?1");
            s.bind(1, int64_t(EntryState::MergeStarted));
            while (s.step())
                unseen.push_back(s.text(0));
        }
        for (size_t i = 0; i < unseen.size(); i += kRowBatch) {
            cancelPoint();
            const std::vector<std::string> batch(unseen.begin() + long(i),
                                                 unseen.begin() + long(std::min(unseen.size(), i + kRowBatch)));
            for (const auto& r : catalog.entriesWithIds(batch))
                putEntry(r);
        }
        if (job)
            job->setStepProgress(0.4);

        // Folders: those whose rows changed (dirty), merge-started and
        // upload folders (files growing in place), and, with stamps, every
        // folder whose stamp moved or was racy; without stamps nothing else.
        std::set<std::string> relist;
        {
            auto s = db.prepare("SELECT folder FROM dirty UNION SELECT folder FROM entries WHERE state = ?1 AND folder <> ''");
            s.bind(1, int64_t(EntryState::MergeStarted));
            while (s.step())
                relist.insert(s.text(0));
        }
        for (const auto& u : catalog.uploads())
            relist.insert(u.folderName);
        if (storage.hasFolderStamps()) {
            const auto names = storage.folders();
            std::set<std::string> present(names.begin(), names.end());
            // Folders gone from the storage.
            {
                std::vector<std::string> gone;
                auto s = db.prepare("SELECT name FROM folders");
                while (s.step())
                    if (!present.count(s.text(0)))
                        gone.push_back(s.text(0));
                for (const auto& g : gone) {
                    deleteFolder.reset();
                    deleteFolder.bindText(1, g).run();
                    dirty(g);
                }
            }
            for (size_t i = 0; i < names.size(); ++i) {
                if (i % 1024 == 0) {
                    cancelPoint();
                    if (job)
                        job->setStepProgress(0.4 + 0.5 * double(i) / double(names.size()));
                }
                const std::string& n = names[i];
                if (relist.count(n))
                    continue;
                folderOf.reset();
                folderOf.bindText(1, n);
                const bool known = folderOf.step();
                const std::string stored = known && !folderOf.isNull(0) ? folderOf.text(0) : std::string();
                const bool racy = known && folderOf.i64(1) != 0;
                folderOf.reset();
                const auto stamp = storage.folderStamp(n);
                ++stats.foldersStamped;
                if (!known || racy || !stamp || *stamp != stored)
                    relist.insert(n);
            }
        }
        relist.erase(std::string());
        listInto(std::vector<std::string>(relist.begin(), relist.end()));
    }

    // The listing columns of every entry whose folder or row changed.
    void applyDirty()
    {
        db.exec("UPDATE entries SET size = 0, parts_present = 0, part_bytes = 0, merged_present = 0, error = '' "
                "WHERE folder IN (SELECT folder FROM dirty)");
        db.exec("UPDATE entries SET parts_present = f.part_count, part_bytes = f.part_bytes, "
                "merged_present = f.merged_size IS NOT NULL, "
                "size = CASE WHEN entries.merged_at IS NOT NULL AND f.merged_size IS NOT NULL THEN f.merged_size "
                "ELSE f.part_bytes END, "
                "error = f.error FROM folders f WHERE f.name = entries.folder AND entries.folder IN (SELECT folder FROM dirty)");
        // A link in the folder: the message ls shows (ActionsCache's withListings).
        auto links = db.prepare("SELECT name, links FROM folders WHERE error = '' AND length(links) > 0 AND name IN "
                                "(SELECT folder FROM dirty)");
        auto set = db.prepare("UPDATE entries SET error = ?2 WHERE folder = ?1");
        while (links.step()) {
            const auto names = splitNames(links.blob(1));
            if (names.empty())
                continue;
            const std::string folder = links.text(0);
            set.reset();
            set.bindText(1, folder)
                .bindText(2, storage.objectName(folder, names.front())
                                 + ": is a symbolic link; cachescope never follows links inside the storage folder")
                .run();
        }
        db.exec("DELETE FROM dirty");
    }
};

IndexRefreshStats SizeIndex::refresh(ActionsCatalog& catalog, ActionsStorage& storage, Job* job, bool full)
{
    const auto started = std::chrono::steady_clock::now();
    const int64_t scanMs = nowMs();
    const auto last = lastScanMs();
    auto lk = db_->lock();
    IndexRefreshStats stats;
    // Bulk writes of a cache: no fsync per commit (the file is rebuilt if a
    // power cut loses it; WAL keeps it consistent).
    db_->withoutFsync([&] {
        Transaction tx(*db_, Transaction::Immediate);
        db_->exec("DELETE FROM dirty");
        Refresh r(*db_, catalog, storage, job);
        if (full || !last)
            r.fullScan();
        else
            r.rescan(*last);
        r.cancelPoint();
        if (r.stats.full) {
            // Every listed folder is dirty (the rows of the others keep their
            // zeros); the folder lookup first, the orders after.
            db_->exec("CREATE INDEX IF NOT EXISTS entries_folder ON entries(folder)");
            db_->exec("DELETE FROM dirty");
            db_->exec("INSERT OR IGNORE INTO dirty SELECT name FROM folders");
        }
        r.applyDirty();
        r.cancelPoint();
        db_->exec(kEntryIndexes);
        db_->prepare("INSERT OR REPLACE INTO meta VALUES('last_scan_ms', ?1)").bindText(1, std::to_string(scanMs)).run();
        db_->prepare("INSERT OR REPLACE INTO meta VALUES('catalog', ?1)").bindText(1, catalog.describe()).run();
        db_->prepare("INSERT OR REPLACE INTO meta VALUES('storage', ?1)").bindText(1, storage.describe()).run();
        stats = r.stats;
        tx.commit();
    });
    if (job)
        job->setStepProgress(1.0);
    auto c = db_->prepare("SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM folders)");
    if (c.step()) {
        stats.entries = uint64_t(c.i64(0));
        stats.folders = uint64_t(c.i64(1));
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return stats;
}

} // namespace cs::actions
