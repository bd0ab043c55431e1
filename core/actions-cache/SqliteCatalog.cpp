// ActionsCatalog over the server's SQLite file (better-sqlite3 leaves it in
// rollback-journal "delete" mode). Every call opens its own connection and
// closes it before returning: reads are one short transaction, and between
// calls we hold no file descriptor, lock or snapshot that a running server
// could trip over (or that would keep a replaced file alive).
#include "core/actions-cache/ActionsBackend.h"
#include "core/actions-cache/ServerSchema.h"

#include "core/util/Error.h"
#include "core/util/OpenFiles.h"
#include "core/util/Sqlite.h"

#include <chrono>
#include <map>
#include <set>

#include <sys/stat.h>

namespace cs::actions {

namespace {

using sqlite::Database;
using sqlite::OpenMode;
using sqlite::Statement;
using sqlite::Transaction;

// The database and the files SQLite keeps beside it.
std::vector<std::string> journalFamily(const std::string& db)
{
    return {db, db + "-journal", db + "-wal", db + "-shm"};
}

// Size and modification time (ns) of each file, "-" for a missing one.
std::string fileStamps(const std::vector<std::string>& files)
{
    std::string out;
    for (const auto& f : files) {
        struct stat st;
        if (::stat(f.c_str(), &st) != 0)
            out += "-;";
        else
            out += std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "."
                   + std::to_string(st.st_mtim.tv_nsec) + ";";
    }
    return out;
}

std::optional<int64_t> optI64(const Statement& s, int col)
{
    if (s.isNull(col))
        return std::nullopt;
    return s.i64(col);
}

class SqliteCatalog final : public ActionsCatalog {
public:
    SqliteCatalog(std::string path, bool writable) : path_(std::move(path)), writable_(writable)
    {
        auto db = open(false);
        std::map<std::string, std::set<std::string>> columns;
        {
            Transaction read(*db, Transaction::Deferred);
            for (const char* table : kServerTables) {
                auto exists = db->prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
                exists.bindText(1, table);
                if (!exists.step())
                    continue;
                auto& names = columns[table];
                auto list = db->prepare("SELECT name FROM pragma_table_info(?)");
                list.bindText(1, table);
                while (list.step())
                    names.insert(list.text(0));
            }
        }
        schema_ = checkServerSchema(path_, columns);
        locationColumns_ = std::string("l.id, l.folderName, l.partCount, l.mergeStartedAt, l.mergedAt, l.partsDeletedAt, "
                                       "l.lastDownloadedAt, ")
                           + (schema_.sizeBytes ? "l.sizeBytes" : "NULL");
        entrySelect_ = "SELECT e.id, e.key, e.version, e.scope, e.repoId, e.updatedAt, e.locationId, " + locationColumns_
                       + " FROM cache_entries e LEFT JOIN storage_locations l ON l.id = e.locationId";
    }

    std::string describe() const override { return path_; }
    bool readOnly() const override { return !writable_; }

    std::vector<EntryRow> entries() override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare(entrySelect_ + " ORDER BY e.updatedAt DESC, e.id");
        std::vector<EntryRow> out;
        while (s.step())
            out.push_back(entryAt(s));
        return out;
    }

    std::vector<EntryRow> entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after,
                                      size_t limit) override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        // The keyset condition spelled out (not a row value): SQLite then
        // seeks idx_cache_entries_key_version on key and walks from there,
        // forwards or backwards.
        const bool byKey = query.order == EntryOrder::KeyAscending || query.order == EntryOrder::KeyDescending;
        const bool descending = query.order == EntryOrder::KeyDescending || query.order == EntryOrder::UpdatedNewest;
        const std::string op = descending ? " < " : " > ";
        std::string sql = "SELECT * FROM cache_entries e WHERE 1";
        if (after && byKey)
            sql += " AND (e.key" + op + "?1 OR (e.key = ?1 AND (e.version" + op + "?2 OR (e.version = ?2 AND e.id" + op
                   + "?3))))";
        else if (after)
            sql += " AND (e.updatedAt" + op + "?4 OR (e.updatedAt = ?4 AND e.id" + op + "?3))";
        if (!query.keyContains.empty())
            sql += " AND instr(lower(e.key), ?5) > 0";   // SQLite's lower() folds A-Z only
        const char* dir = descending ? " DESC" : "";
        const std::string orderBy = byKey ? std::string(" ORDER BY e.key") + dir + ", e.version" + dir + ", e.id" + dir
                                          : std::string(" ORDER BY e.updatedAt") + dir + ", e.id" + dir;
        sql += orderBy + " LIMIT ?6";
        auto s = db->prepare(pageJoin(sql, orderBy));
        if (after) {
            s.bindText(3, after->id);
            if (byKey)
                s.bindText(1, after->key).bindText(2, after->version);
            else
                s.bind(4, after->updatedAtMs);
        }
        if (!query.keyContains.empty())
            s.bindText(5, asciiLower(query.keyContains));
        s.bind(6, int64_t(limit));
        std::vector<EntryRow> out;
        while (s.step())
            out.push_back(entryAt(s));
        return out;
    }

    uint64_t entryCount(const std::string& keyContains) override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare(keyContains.empty() ? "SELECT count(*) FROM cache_entries"
                                                 : "SELECT count(*) FROM cache_entries WHERE instr(lower(key), ?1) > 0");
        if (!keyContains.empty())
            s.bindText(1, asciiLower(keyContains));
        return s.step() ? uint64_t(s.i64(0)) : 0;
    }

    std::vector<EntryRow> entriesChangedSince(int64_t ms) override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare(entrySelect_
                             + " WHERE e.updatedAt >= ?1 OR l.mergeStartedAt >= ?1 OR l.mergedAt >= ?1"
                               " OR l.partsDeletedAt >= ?1 OR l.lastDownloadedAt >= ?1");
        s.bind(1, ms);
        std::vector<EntryRow> out;
        while (s.step())
            out.push_back(entryAt(s));
        return out;
    }

    std::vector<std::string> entryIdsAfter(const std::string& afterId, size_t limit) override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        // cache_entries' primary key index gives the ids in order (BINARY collation: bytewise).
        auto s = db->prepare("SELECT id FROM cache_entries WHERE id > ?1 ORDER BY id LIMIT ?2");
        s.bindText(1, afterId).bind(2, int64_t(limit));
        std::vector<std::string> out;
        while (s.step())
            out.push_back(s.text(0));
        return out;
    }

    std::vector<EntryRow> entriesWithIds(const std::vector<std::string>& ids) override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare(entrySelect_ + " WHERE e.id = ?1");
        std::vector<EntryRow> out;
        for (const auto& id : ids) {
            s.reset();
            s.bindText(1, id);
            if (s.step())
                out.push_back(entryAt(s));
        }
        return out;
    }

    std::vector<LocationRow> locationsWithoutEntry() override
    {
        // The server makes no index on cache_entries.locationId, so a NOT
        // EXISTS subquery scans cache_entries once per location (SQLite 3.40
        // runs it as a correlated scan: 10 s at 20,000 entries, quadratic).
        // As an anti-join SQLite builds a transient index on locationId
        // (AUTOMATIC COVERING INDEX) and the whole query is one pass of each
        // table; a read-only connection may build it (temp store).
        return readLocations("SELECT " + locationColumns_ + " FROM storage_locations l LEFT JOIN cache_entries e "
                             "ON e.locationId = l.id WHERE e.locationId IS NULL ORDER BY l.id");
    }

    std::vector<LocationRow> locations() override
    {
        return readLocations("SELECT " + locationColumns_ + " FROM storage_locations l ORDER BY l.id");
    }

    std::vector<UploadRow> uploads() override
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare("SELECT id, key, version, scope, repoId, createdAt, lastPartUploadedAt, folderName, "
                             "startedPartUploadCount, finishedPartUploadCount FROM uploads ORDER BY createdAt, id");
        std::vector<UploadRow> out;
        while (s.step()) {
            UploadRow u;
            u.id = s.i64(0);
            u.key = s.text(1);
            u.version = s.text(2);
            u.scope = s.text(3);
            u.repoId = s.text(4);
            u.createdAtMs = s.i64(5);
            u.lastPartUploadedAtMs = optI64(s, 6);
            u.folderName = s.text(7);
            u.startedPartUploadCount = s.i64(8);
            u.finishedPartUploadCount = s.i64(9);
            out.push_back(std::move(u));
        }
        return out;
    }

    std::vector<LeaseRow> leases(int64_t atMs) override
    {
        if (!schema_.mergeLeases && !schema_.readerLeases)
            return {};
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        return leasesWhere(*db, "", atMs);
    }

    std::vector<std::string> otherUsers() override
    {
        // The server's better-sqlite3 keeps the database open for as long as
        // it runs; a journal open means a write is under way.
        return describeHolders(processesHolding(journalFamily(path_)));
    }

    std::string changeStamp() override
    {
        // The files first (every commit of another process changes the
        // database's, or in WAL mode the -wal's, size or mtime), then counts
        // and newest times from one read, for a write within one mtime tick
        // of a coarse clock. Not PRAGMA data_version: it only tells a
        // connection held across polls, and we hold none between calls.
        std::string stamp = fileStamps(journalFamily(path_));
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare("SELECT (SELECT count(*) FROM cache_entries), (SELECT count(*) FROM storage_locations), "
                             "(SELECT count(*) FROM uploads), (SELECT max(updatedAt) FROM cache_entries), "
                             "(SELECT max(max(coalesce(mergeStartedAt, 0), coalesce(mergedAt, 0), "
                             "coalesce(partsDeletedAt, 0))) FROM storage_locations), "
                             "(SELECT total(finishedPartUploadCount) FROM uploads)");
        if (s.step())
            for (int c = 0; c < 6; ++c)
                stamp += "|" + (s.isNull(c) ? std::string("-") : s.text(c));
        return stamp;
    }

    bool setMergeStarted(const LocationRow& seen, std::optional<int64_t> ms) override
    {
        return update("mergeStartedAt", seen, ms);
    }
    bool setMerged(const LocationRow& seen, int64_t ms) override { return update("mergedAt", seen, ms); }
    bool setPartsDeleted(const LocationRow& seen, int64_t ms) override { return update("partsDeletedAt", seen, ms); }

    bool deleteLocation(const std::string& locationId, const std::optional<LocationRow>& seen) override
    {
        auto db = open(true);
        Transaction tx(*db, Transaction::Immediate);
        // The test and the delete in one IMMEDIATE transaction: no writer
        // (the server included) can change the row, or take a lease, in between.
        refuseUnderLease(*db, locationId);
        auto row = db->prepare(std::string("SELECT 1 FROM storage_locations WHERE id = ?") + (seen ? kSeen : ""));
        row.bindText(1, locationId);
        if (seen)
            bindSeen(row, 2, *seen);
        if (row.step() != seen.has_value())
            return false;
        // The server's foreign key cascades; we delete the entries explicitly
        // so a database without the constraint ends the same.
        db->prepare("DELETE FROM cache_entries WHERE locationId = ?").bindText(1, locationId).run();
        db->prepare("DELETE FROM storage_locations WHERE id = ?").bindText(1, locationId).run();
        tx.commit();
        return true;
    }

    bool deleteUpload(const UploadRow& seen) override
    {
        auto db = open(true);
        Transaction tx(*db, Transaction::Immediate);
        auto s = db->prepare("DELETE FROM uploads WHERE id = ? AND lastPartUploadedAt IS ? AND "
                             "startedPartUploadCount = ? AND finishedPartUploadCount = ?");
        s.bind(1, seen.id);
        if (seen.lastPartUploadedAtMs)
            s.bind(2, *seen.lastPartUploadedAtMs);
        else
            s.bindNull(2);
        s.bind(3, seen.startedPartUploadCount).bind(4, seen.finishedPartUploadCount).run();
        const bool changed = db->changes() == 1;
        tx.commit();
        return changed;
    }

private:
    // Unexpired leases (of one location when locationId is not empty).
    std::vector<LeaseRow> leasesWhere(Database& db, const std::string& locationId, int64_t atMs) const
    {
        std::vector<LeaseRow> out;
        const std::string on = locationId.empty() ? "" : " AND storageLocationId = ?2";
        if (schema_.mergeLeases) {
            auto s = db.prepare("SELECT token, storageLocationId, expiresAt FROM merge_leases WHERE expiresAt > ?1" + on
                                + " ORDER BY storageLocationId");
            s.bind(1, atMs);
            if (!locationId.empty())
                s.bindText(2, locationId);
            while (s.step())
                out.push_back({"merge_leases", s.text(0), s.text(1), "", s.i64(2)});
        }
        if (schema_.readerLeases) {
            auto s = db.prepare("SELECT id, storageLocationId, scope, expiresAt FROM storage_reader_leases "
                                "WHERE expiresAt > ?1" + on + " ORDER BY storageLocationId, id");
            s.bind(1, atMs);
            if (!locationId.empty())
                s.bindText(2, locationId);
            while (s.step())
                out.push_back({"storage_reader_leases", s.text(0), s.text(1), s.text(2), s.i64(3)});
        }
        return out;
    }
    // Inside a write's IMMEDIATE transaction: the server cannot take a lease
    // between this test and the write.
    void refuseUnderLease(Database& db, const std::string& locationId) const
    {
        const auto held = leasesWhere(db, locationId, nowMs());
        if (!held.empty())
            throw LeaseHeld(leaseSentence(path_, held.front()), held.front());
    }
    static int64_t nowMs()
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    }

    std::unique_ptr<Database> open(bool forWrite) const
    {
        if (forWrite && !writable_)
            fail(path_, "opened read-only: writing needs --write (or the GUI's confirmation)");
        // Opened for writing, reads go through a writer connection too: it
        // rolls back a hot journal a killed write left (a read-only one
        // cannot, and would fail every command until the server ran again).
        return std::make_unique<Database>(path_, forWrite || writable_ ? OpenMode::ForeignWrite : OpenMode::ReadOnly);
    }

    // The page's rows picked from cache_entries alone (filter, order,
    // limit), then joined to their locations: ordering the joined table
    // would look up every row's location before the sort could cut it.
    std::string pageJoin(const std::string& pageSql, const std::string& orderBy) const
    {
        std::string sql = entrySelect_;
        const std::string from = "FROM cache_entries e";
        sql.replace(sql.find(from), from.size(), "FROM (" + pageSql + ") e");
        return sql + orderBy;
    }

    static EntryRow entryAt(const Statement& s)
    {
        EntryRow e;
        e.id = s.text(0);
        e.key = s.text(1);
        e.version = s.text(2);
        e.scope = s.text(3);
        e.repoId = s.text(4);
        e.updatedAtMs = s.i64(5);
        e.locationId = s.text(6);
        if (!s.isNull(7))
            e.location = locationAt(s, 7);
        return e;
    }

    // Every row of a query whose columns are a location's (locationAt).
    std::vector<LocationRow> readLocations(const std::string& sql) const
    {
        auto db = open(false);
        Transaction read(*db, Transaction::Deferred);
        auto s = db->prepare(sql);
        std::vector<LocationRow> out;
        while (s.step())
            out.push_back(locationAt(s, 0));
        return out;
    }

    static LocationRow locationAt(const Statement& s, int c)
    {
        LocationRow l;
        l.id = s.text(c);
        l.folderName = s.text(c + 1);
        l.partCount = s.i64(c + 2);
        l.mergeStartedAtMs = optI64(s, c + 3);
        l.mergedAtMs = optI64(s, c + 4);
        l.partsDeletedAtMs = optI64(s, c + 5);
        l.lastDownloadedAtMs = optI64(s, c + 6);
        l.sizeBytes = optI64(s, c + 7);
        return l;
    }

    // The merge columns as the plan saw them (IS compares NULL as a value),
    // and lastDownloadedAt for a delete.
    static constexpr const char* kSeen =
        " AND mergeStartedAt IS ? AND mergedAt IS ? AND partsDeletedAt IS ? AND lastDownloadedAt IS ?";

    static void bindOpt(Statement& s, int i, const std::optional<int64_t>& v)
    {
        if (v)
            s.bind(i, *v);
        else
            s.bindNull(i);
    }
    static void bindSeen(Statement& s, int i, const LocationRow& seen)
    {
        bindOpt(s, i, seen.mergeStartedAtMs);
        bindOpt(s, i + 1, seen.mergedAtMs);
        bindOpt(s, i + 2, seen.partsDeletedAtMs);
        bindOpt(s, i + 3, seen.lastDownloadedAtMs);
    }

    bool update(const char* column, const LocationRow& seen, std::optional<int64_t> ms)
    {
        auto db = open(true);
        Transaction tx(*db, Transaction::Immediate);
        refuseUnderLease(*db, seen.id);
        auto s = db->prepare(std::string("UPDATE storage_locations SET ") + column
                             + " = ? WHERE id = ? AND mergeStartedAt IS ? AND mergedAt IS ? AND partsDeletedAt IS ?");
        bindOpt(s, 1, ms);
        s.bindText(2, seen.id);
        bindOpt(s, 3, seen.mergeStartedAtMs);
        bindOpt(s, 4, seen.mergedAtMs);
        bindOpt(s, 5, seen.partsDeletedAtMs);
        s.run();
        const bool changed = db->changes() == 1;
        tx.commit();
        return changed;
    }

    std::string path_;
    bool writable_ = false;
    ServerSchema schema_;
    std::string locationColumns_;   // a location's columns, sizeBytes (or NULL) last
    std::string entrySelect_;       // an entry's columns, then its location's
};

} // namespace

std::unique_ptr<ActionsCatalog> openSqliteCatalog(const std::string& dbPath, bool writable)
{
    return std::make_unique<SqliteCatalog>(dbPath, writable);
}

} // namespace cs::actions
