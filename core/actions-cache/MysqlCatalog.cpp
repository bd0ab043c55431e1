// ActionsCatalog over the server's MySQL/MariaDB database (DB_DRIVER=mysql).
// kysely creates the v9 tables there with varchar(36) ids, varchar(512)
// keys and varchar(255) versions, scopes and repo ids, in the database's
// default character set and collation; identifiers are backquoted (`key` is
// a reserved word). As on PostgreSQL a connection is opened per call and
// closed after it: reads run on a READ ONLY session in one READ ONLY
// transaction, and nothing is held between calls.
//
// Orders follow the columns' collation (as PostgreSQL's follow the
// database's): the index idx_cache_entries_key_version is in it, so a page
// by key is a range scan of that index from the cursor to a bound found in
// it (entriesPage says why the bound). The cursor conditions are written
// out, not as row comparisons, so MariaDB's and MySQL's range optimizers
// both seek on them.
#include "core/actions-cache/ActionsInternal.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/ServerRows.h"
#include "core/actions-cache/ServerSchema.h"

#include "core/remote/MysqlConnection.h"
#include "core/util/Error.h"

#include <map>
#include <set>

namespace cs::actions {

namespace {

using remote::MysqlConnection;
using remote::MysqlParams;
using remote::MysqlResult;
using remote::MysqlTransaction;
using remote::MysqlValue;

// A location's columns (ServerRows.h locationAt), sizeBytes where the schema has it.
std::string locationColumnsFor(const ServerSchema& schema)
{
    return std::string("l.`id`, l.`folderName`, l.`partCount`, l.`mergeStartedAt`, l.`mergedAt`, l.`partsDeletedAt`, "
                       "l.`lastDownloadedAt`, ")
           + (schema.sizeBytes ? "l.`sizeBytes`" : "NULL");
}

MysqlParams withParam(MysqlParams params, MysqlValue value)
{
    params.push_back(std::move(value));
    return params;
}

// The key's UTF-8 bytes with A-Z folded to a-z and nothing else: LOWER()
// and LIKE would fold by the column's collation (other letters, accents,
// and not at all under a _bin collation); the key filter means the same
// bytes on every catalog. REPLACE on a binary string compares bytes.
std::string keyFolded()
{
    std::string s = "CAST(CONVERT(e.`key` USING utf8mb4) AS BINARY)";
    for (char c = 'A'; c <= 'Z'; ++c)
        s = "REPLACE(" + s + ", '" + c + "', '" + char(c - 'A' + 'a') + "')";
    return s;
}

// '%needle%' for LIKE, with ! escaping (a backslash escape depends on sql_mode).
std::string likePattern(const std::string& needle)
{
    std::string p = "%";
    for (char c : needle) {
        if (c == '%' || c == '_' || c == '!')
            p += '!';
        p += c;
    }
    return p + "%";
}

// Whether LIKE under the key column's collation matches every key the
// byte rule matches: it compares character by character (never
// contractions), so a collation that equates each A-Z with its a-z (and
// each character with itself) does. Only the servers' default families are
// trusted: not a _bin or _cs one (case counts), nor a language's (Turkish
// keeps I apart from i).
bool likeIsCaseBlind(const std::string& collation)
{
    const size_t cut = collation.find('_');
    if (cut == std::string::npos)
        return false;
    const std::string rest = collation.substr(cut + 1);
    for (const char* family : {"general_ci", "general_nopad_ci", "general_mysql500_ci", "unicode_ci", "unicode_nopad_ci",
                               "unicode_520_ci", "unicode_520_nopad_ci", "0900_ai_ci", "0900_as_ci", "uca1400_ai_ci",
                               "uca1400_as_ci", "uca1400_nopad_ai_ci", "uca1400_nopad_as_ci", "swedish_ci"})
        if (rest == family)
            return true;
    return false;
}

// ` AND LOCATE(needle, folded key) > 0`, the needle as bytes; behind a
// LIKE of the column's own collation where that matches a superset (about
// twice as fast on a million keys: the folding then runs on its matches only).
std::string keyFilter(MysqlParams& params, const std::string& keyContains, bool likeFirst)
{
    std::string sql;
    if (likeFirst) {
        params.push_back(MysqlValue::of(likePattern(keyContains)));
        sql = " AND e.`key` LIKE ? ESCAPE '!'";
    }
    params.push_back(MysqlValue::of(asciiLower(keyContains)));
    return sql + " AND LOCATE(CAST(? AS BINARY), " + keyFolded() + ") > 0";
}


class MysqlCatalog final : public ActionsCatalog {
public:
    MysqlCatalog(const std::string& url, bool writable, std::string password)
        : target_(remote::parseMysqlUrl(url)), password_(std::move(password)), writable_(writable)
    {
        describe_ = target_.describe();
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        std::string names;
        for (const char* t : kServerTables)
            names += std::string(names.empty() ? "'" : ", '") + t + "'";
        const MysqlResult r = c->exec("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                                      "DATABASE() AND TABLE_NAME IN (" + names + ")");
        std::map<std::string, std::set<std::string>> columns;
        for (int i = 0; i < r.rows(); ++i)
            columns[r.text(i, 0)].insert(r.text(i, 1));
        schema_ = checkServerSchema(describe_, columns);
        locationColumns_ = locationColumnsFor(schema_);
        const MysqlResult collation = c->exec(
            "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
            "AND TABLE_NAME = 'cache_entries' AND COLUMN_NAME = 'key'");
        likeFirst_ = collation.rows() == 1 && likeIsCaseBlind(collation.text(0, 0));
    }

    std::string describe() const override { return describe_; }
    bool readOnly() const override { return !writable_; }

    std::vector<EntryRow> entries() override
    {
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        return entryRows(c->exec(entrySelect("cache_entries") + " ORDER BY e.`updatedAt` DESC, e.`id`"));
    }

    std::vector<EntryRow> entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after,
                                      size_t limit) override
    {
        if (limit == 0)
            return {};
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        const bool byKey = query.order == EntryOrder::KeyAscending || query.order == EntryOrder::KeyDescending;
        const bool descending = query.order == EntryOrder::KeyDescending || query.order == EntryOrder::UpdatedNewest;
        const std::string op = descending ? " < " : " > ";
        const std::string opOrEqual = descending ? " <= " : " >= ";
        // After the cursor, and the key filter.
        MysqlParams params;
        std::string where = " WHERE TRUE";
        if (after && byKey) {
            // key >= k AND (key > k OR version > v OR (version = v AND id > i))
            where += " AND e.`key`" + opOrEqual + "? AND (e.`key`" + op + "? OR e.`version`" + op +
                     "? OR (e.`version` = ? AND e.`id`" + op + "?))";
            for (const std::string* v : {&after->key, &after->key, &after->version, &after->version, &after->id})
                params.push_back(MysqlValue::of(*v));
        } else if (after) {
            where += " AND (e.`updatedAt`" + op + "? OR (e.`updatedAt` = ? AND e.`id`" + op + "?))";
            params.push_back(MysqlValue::of(after->updatedAtMs));
            params.push_back(MysqlValue::of(after->updatedAtMs));
            params.push_back(MysqlValue::of(after->id));
        }
        if (!query.keyContains.empty())
            where += keyFilter(params, query.keyContains, likeFirst_);
        const char* dir = descending ? " DESC" : "";
        if (byKey) {
            // The index is (key, version) at the length limit (utf8mb4:
            // 2,050 + 1,022 = 3,072 bytes), so the optimizer does not append
            // the primary key to it and an ORDER BY key, version, id would
            // sort the table. So the page is bounded first: the (key,
            // version) of the first and the last of the next limit rows,
            // from an index-only walk of them in (key, version) order (the
            // page's rows have the same (key, version) values in any order
            // of ids), then the rows between, at most the limit plus the
            // last value's ties, sorted by id too. A rare filter match
            // bounds the second walk as well (0.8-1.3 s instead of 2.1 s for
            // the 5 keys holding '424242' among a million).
            const MysqlResult bounds = c->exec("SELECT e.`key`, e.`version` FROM cache_entries e" + where +
                                                   " ORDER BY e.`key`" + dir + ", e.`version`" + dir + " LIMIT ?",
                                               withParam(params, MysqlValue::of(int64_t(limit))));
            if (bounds.rows() == 0)
                return {};
            const int last = bounds.rows() - 1;
            // key >= k0 AND key <= kn AND (key < kn OR version <= vn)
            where += " AND e.`key`" + std::string(descending ? " <= " : " >= ") + "? AND e.`key`" +
                     (descending ? " >= " : " <= ") + "? AND (e.`key`" + (descending ? " > " : " < ") + "? OR e.`version`" +
                     (descending ? " >= " : " <= ") + "?)";
            params.push_back(MysqlValue::of(bounds.text(0, 0)));
            params.push_back(MysqlValue::of(bounds.text(last, 0)));
            params.push_back(MysqlValue::of(bounds.text(last, 0)));
            params.push_back(MysqlValue::of(bounds.text(last, 1)));
        }
        const std::string orderBy = byKey ? std::string(" ORDER BY e.`key`") + dir + ", e.`version`" + dir + ", e.`id`" + dir
                                          : std::string(" ORDER BY e.`updatedAt`") + dir + ", e.`id`" + dir;
        params.push_back(MysqlValue::of(int64_t(limit)));
        // The page's rows picked from cache_entries alone, then joined to
        // their locations (the derived table's LIMIT keeps it from merging).
        return entryRows(c->exec(entrySelect("(SELECT * FROM cache_entries e" + where + orderBy + " LIMIT ?)") + orderBy,
                                 params));
    }

    uint64_t entryCount(const std::string& keyContains) override
    {
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        if (keyContains.empty())
            return uint64_t(c->exec("SELECT count(*) FROM cache_entries").i64(0, 0));
        MysqlParams params;
        const std::string filter = keyFilter(params, keyContains, likeFirst_);
        return uint64_t(c->exec("SELECT count(*) FROM cache_entries e WHERE TRUE" + filter, params).i64(0, 0));
    }

    // In the primary key's order and collation: an index range per page
    // (the default reads every row for each page).
    std::vector<std::string> entryIdsAfter(const std::string& afterId, size_t limit) override
    {
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        MysqlParams params;
        params.push_back(MysqlValue::of(afterId));
        params.push_back(MysqlValue::of(int64_t(limit)));
        const MysqlResult r = c->exec("SELECT `id` FROM cache_entries WHERE `id` > ? ORDER BY `id` LIMIT ?", params);
        std::vector<std::string> out;
        out.reserve(size_t(r.rows()));
        for (int i = 0; i < r.rows(); ++i)
            out.push_back(r.text(i, 0));
        return out;
    }

    std::vector<LocationRow> locationsWithoutEntry() override
    {
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        return locationRows(c->exec("SELECT " + locationColumns_ +
                                    " FROM storage_locations l WHERE NOT EXISTS"
                                    " (SELECT 1 FROM cache_entries e WHERE e.`locationId` = l.`id`) ORDER BY l.`id`"));
    }

    std::vector<LocationRow> locations() override
    {
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        return locationRows(c->exec("SELECT " + locationColumns_ + " FROM storage_locations l ORDER BY l.`id`"));
    }

    std::vector<UploadRow> uploads() override
    {
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        const MysqlResult r = c->exec(
            "SELECT `id`, `key`, `version`, `scope`, `repoId`, `createdAt`, `lastPartUploadedAt`, `folderName`, "
            "`startedPartUploadCount`, `finishedPartUploadCount` FROM uploads ORDER BY `createdAt`, `id`");
        return uploadRows(r);
    }

    std::vector<LeaseRow> leases(int64_t atMs) override
    {
        if (!schema_.mergeLeases && !schema_.readerLeases)
            return {};
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        return leasesWhere(*c, {}, atMs);
    }

    std::vector<std::string> otherUsers() override
    {
        // The server's mysql2 pool keeps sessions on the database while it
        // runs; an idle one (Sleep) is still a running server. Ours is
        // excluded, and so are other cachescope sessions where the server
        // records connection attributes (performance_schema on: MySQL's
        // default, MariaDB's when enabled); without them a cachescope read
        // running at that instant counts too. PROCESSLIST shows the sessions
        // of this user, every session with the PROCESS privilege.
        auto c = connect();
        const std::string base =
            "SELECT p.`ID`, p.`HOST`, p.`USER`, p.`COMMAND` FROM information_schema.PROCESSLIST p "
            "WHERE p.`DB` = DATABASE() AND p.`ID` <> CONNECTION_ID()";
        MysqlResult r;
        try {
            r = c->exec(base + " AND NOT EXISTS (SELECT 1 FROM performance_schema.session_connect_attrs a "
                               "WHERE a.`PROCESSLIST_ID` = p.`ID` AND a.`ATTR_NAME` = 'program_name' "
                               "AND a.`ATTR_VALUE` LIKE 'cachescope%') ORDER BY p.`ID`");
        } catch (const Error&) {
            r = c->exec(base + " ORDER BY p.`ID`");   // no access to performance_schema
        }
        std::vector<std::string> out;
        for (int i = 0; i < r.rows(); ++i) {
            const std::string host = r.text(i, 1);
            out.push_back("session " + r.text(i, 0) + " from " + (host.empty() ? "the local socket" : host) +
                          " (user '" + r.text(i, 2) + "'), " + r.text(i, 3));
        }
        return out;
    }

    std::string changeStamp() override
    {
        // Counts and newest times answer at once; the tables' UPDATE_TIME
        // (InnoDB keeps it in memory, to the second) catches what leaves
        // both alone.
        auto c = connect();
        MysqlTransaction read(*c, MysqlTransaction::ReadOnly);
        const MysqlResult r = c->exec(
            "SELECT (SELECT count(*) FROM cache_entries), (SELECT count(*) FROM storage_locations), "
            "(SELECT count(*) FROM uploads), COALESCE((SELECT max(`updatedAt`) FROM cache_entries), '-'), "
            "COALESCE((SELECT max(GREATEST(COALESCE(`mergeStartedAt`, 0), COALESCE(`mergedAt`, 0), "
            "COALESCE(`partsDeletedAt`, 0), COALESCE(`lastDownloadedAt`, 0))) FROM storage_locations), '-'), "
            "COALESCE((SELECT sum(`finishedPartUploadCount`) FROM uploads), '-'), "
            "COALESCE((SELECT GROUP_CONCAT(COALESCE(`UPDATE_TIME`, '-') ORDER BY `TABLE_NAME`) FROM "
            "information_schema.TABLES WHERE `TABLE_SCHEMA` = DATABASE() "
            "AND `TABLE_NAME` IN ('cache_entries', 'storage_locations', 'uploads')), '-')");
        std::string stamp;
        for (int col = 0; col < r.columns(); ++col)
            stamp += r.text(0, col) + "|";
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
        auto c = connectForWrite();
        MysqlTransaction tx(*c, MysqlTransaction::ReadWrite);
        refuseUnderLease(*c, locationId);
        // The location first, tested in its own DELETE (the row lock it takes
        // holds off the server's UPDATEs until we commit); then its entries
        // (the migration's inline REFERENCES .. ON DELETE CASCADE is a real
        // foreign key on MariaDB 10.5+, but MySQL ignores inline references).
        if (seen) {
            MysqlParams params{MysqlValue::of(locationId)};
            const MysqlResult r = c->exec("DELETE FROM storage_locations WHERE `id` = ?" + seenCondition(params, *seen, true),
                                          params);
            if (r.affected() != 1)
                return false;
        } else if (c->exec("SELECT 1 FROM storage_locations WHERE `id` = ? FOR UPDATE", {MysqlValue::of(locationId)})
                       .rows() != 0) {
            // (InnoDB's FOR UPDATE on a missing row locks the gap: no
            // location of that id appears until we commit.)
            return false;
        }
        c->exec("DELETE FROM cache_entries WHERE `locationId` = ?", {MysqlValue::of(locationId)});
        tx.commit();
        return true;
    }

    bool deleteUpload(const UploadRow& seen) override
    {
        auto c = connectForWrite();
        MysqlTransaction tx(*c, MysqlTransaction::ReadWrite);
        const MysqlResult r = c->exec(
            "DELETE FROM uploads WHERE `id` = ? AND `lastPartUploadedAt` <=> ? "
            "AND `startedPartUploadCount` = ? AND `finishedPartUploadCount` = ?",
            {MysqlValue::of(seen.id), MysqlValue::of(seen.lastPartUploadedAtMs), MysqlValue::of(seen.startedPartUploadCount),
             MysqlValue::of(seen.finishedPartUploadCount)});
        tx.commit();
        return r.affected() == 1;
    }

private:
    std::string entrySelect(const std::string& from) const
    {
        return "SELECT e.`id`, e.`key`, e.`version`, e.`scope`, e.`repoId`, e.`updatedAt`, e.`locationId`, " +
               locationColumns_ + " FROM " + from + " e LEFT JOIN storage_locations l ON l.`id` = e.`locationId`";
    }

    // Unexpired leases (of one location when locationId is given).
    std::vector<LeaseRow> leasesWhere(MysqlConnection& c, const std::optional<std::string>& locationId, int64_t atMs) const
    {
        MysqlParams params{MysqlValue::of(atMs)};
        if (locationId)
            params.push_back(MysqlValue::of(*locationId));
        return leaseRows(schema_.mergeLeases, schema_.readerLeases, leaseQueries('`', "?", locationId ? "?" : ""),
                         [&](const std::string& sql) { return c.exec(sql, params); });
    }
    // In a write's transaction, after locking the location row as the
    // server's download does before it inserts a reader lease (SELECT ..
    // FOR UPDATE; on a missing row InnoDB locks the gap).
    void refuseUnderLease(MysqlConnection& c, const std::string& locationId) const
    {
        if (!schema_.mergeLeases && !schema_.readerLeases)
            return;
        c.exec("SELECT 1 FROM storage_locations WHERE `id` = ? FOR UPDATE", {MysqlValue::of(locationId)});
        const auto held = leasesWhere(c, locationId, nowMs());
        if (!held.empty())
            throw LeaseHeld(leaseSentence(describe_, held.front()), held.front());
    }

    std::unique_ptr<MysqlConnection> connect() const
    {
        return MysqlConnection::connect(target_, writable_ ? MysqlConnection::ReadWriteSession
                                                           : MysqlConnection::ReadOnlySession,
                                        password_);
    }
    std::unique_ptr<MysqlConnection> connectForWrite() const
    {
        if (!writable_)
            fail(describe_, "opened read-only: writing needs --write (or the GUI's confirmation)");
        return connect();
    }
    // The merge columns as the plan saw them (<=> compares NULL as a
    // value), and lastDownloadedAt for a delete.
    static std::string seenCondition(MysqlParams& params, const LocationRow& seen, bool withDownload)
    {
        params.push_back(MysqlValue::of(seen.mergeStartedAtMs));
        params.push_back(MysqlValue::of(seen.mergedAtMs));
        params.push_back(MysqlValue::of(seen.partsDeletedAtMs));
        std::string sql = " AND `mergeStartedAt` <=> ? AND `mergedAt` <=> ? AND `partsDeletedAt` <=> ?";
        if (withDownload) {
            params.push_back(MysqlValue::of(seen.lastDownloadedAtMs));
            sql += " AND `lastDownloadedAt` <=> ?";
        }
        return sql;
    }

    bool update(const char* column, const LocationRow& seen, std::optional<int64_t> ms)
    {
        auto c = connectForWrite();
        MysqlTransaction tx(*c, MysqlTransaction::ReadWrite);
        refuseUnderLease(*c, seen.id);
        MysqlParams params{MysqlValue::of(ms), MysqlValue::of(seen.id)};
        const std::string sql = std::string("UPDATE storage_locations SET `") + column + "` = ? WHERE `id` = ?" +
                                seenCondition(params, seen, false);
        const MysqlResult r = c->exec(sql, params);
        tx.commit();
        return r.affected() == 1;
    }

    remote::MysqlTarget target_;
    std::string password_;   // typed in; never in a message
    std::string describe_;
    bool writable_ = false;
    bool likeFirst_ = false;   // the key column's collation lets LIKE prefilter the key filter
    ServerSchema schema_;
    std::string locationColumns_;   // a location's columns, sizeBytes (or NULL) last
};

} // namespace

std::unique_ptr<ActionsCatalog> openMysqlCatalog(const std::string& url, bool writable, const std::string& password)
{
    return std::make_unique<MysqlCatalog>(url, writable, password);
}

} // namespace cs::actions
