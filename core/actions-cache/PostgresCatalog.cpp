// ActionsCatalog over the server's PostgreSQL database. kysely creates the
// v9 tables with camelCase column names, so every column is quoted. A
// connection is opened per call and closed after it: reads are one READ ONLY
// transaction and nothing is held between calls (no locks, no snapshot a
// running server could wait on).
#include "core/actions-cache/ActionsInternal.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/ServerRows.h"
#include "core/actions-cache/ServerSchema.h"

#include "core/remote/PgConnection.h"
#include "core/util/Error.h"

#include <map>
#include <set>

namespace cs::actions {

namespace {

using remote::PgConnection;
using remote::PgResult;
using remote::PgTransaction;

// A location's columns (ServerRows.h locationAt), sizeBytes where the schema has it.
std::string locationColumnsFor(const ServerSchema& schema)
{
    return std::string(R"(l."id", l."folderName", l."partCount", l."mergeStartedAt", l."mergedAt", l."partsDeletedAt", )"
                       R"(l."lastDownloadedAt", )")
           + (schema.sizeBytes ? R"(l."sizeBytes")" : "NULL::bigint");
}

// The key with A-Z folded to a-z and nothing else (lower() would fold
// other letters by the database's locale, SQLite's lower() does not): the
// key filter means the same on both catalogs.
const char* const kKeyFolded = R"(translate(e."key", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'))";

// ILIKE '%needle%' first: PostgreSQL runs it far faster than translate()
// (counting the matches among a million keys: 0.43 s against 2.0 s), and it matches every key the
// folded comparison matches (it folds A-Z too, and more by the locale), so
// translate() only decides among its matches.
std::string likePattern(const std::string& needle)
{
    std::string p = "%";
    for (char c : needle) {
        if (c == '%' || c == '_' || c == '\\')
            p += '\\';
        p += c;
    }
    return p + "%";
}

std::string keyFilter(const std::string& likeParam, const std::string& foldedParam)
{
    return std::string(R"( AND e."key" ILIKE )") + likeParam + " AND strpos(" + kKeyFolded + ", " + foldedParam + ") > 0";
}

// The page's rows picked from cache_entries alone (filter, order, limit),
// then joined to their locations: ordering the joined table would join all
// of it first (a hash join of a million rows) before the sort could cut it.
std::string pageJoin(const std::string& entrySelect, const std::string& pageSql, const std::string& orderBy)
{
    std::string sql = entrySelect;
    const std::string from = "FROM cache_entries e";
    sql.replace(sql.find(from), from.size(), "FROM (" + pageSql + ") e");
    return sql + orderBy;
}

class PostgresCatalog final : public ActionsCatalog {
public:
    PostgresCatalog(std::string conninfo, bool writable, std::string password)
        : conninfo_(std::move(conninfo)), password_(std::move(password)), writable_(writable)
    {
        auto c = connect();
        describe_ = c->describe();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        // The tables as an unqualified name finds them (the search path), and
        // their live columns.
        std::string names;
        for (const char* t : kServerTables)
            names += std::string(names.empty() ? "" : ", ") + "to_regclass('" + t + "')";
        const PgResult r = c->exec("SELECT c.relname, a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid "
                                   "WHERE c.oid IN (" + names + ") AND a.attnum > 0 AND NOT a.attisdropped");
        std::map<std::string, std::set<std::string>> columns;
        for (int i = 0; i < r.rows(); ++i)
            columns[r.text(i, 0)].insert(r.text(i, 1));
        schema_ = checkServerSchema(describe_, columns);
        locationColumns_ = locationColumnsFor(schema_);
        entrySelect_ = std::string(R"(SELECT e."id", e."key", e."version", e."scope", e."repoId", e."updatedAt", e."locationId", )")
                       + locationColumns_
                       + R"( FROM cache_entries e LEFT JOIN storage_locations l ON l."id" = e."locationId")";
    }

    std::string describe() const override { return describe_; }
    bool readOnly() const override { return !writable_; }

    std::vector<EntryRow> entries() override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        return entryRows(c->exec(entrySelect_ + R"( ORDER BY e."updatedAt" DESC, e."id")"));
    }

    std::vector<EntryRow> entriesPage(const EntryQuery& query, const std::optional<EntryCursor>& after,
                                      size_t limit) override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        // Row comparisons: by key PostgreSQL turns them into an index
        // condition on idx_cache_entries_key_version (key, version), walked
        // forwards or backwards, the id breaking ties.
        const bool byKey = query.order == EntryOrder::KeyAscending || query.order == EntryOrder::KeyDescending;
        const bool descending = query.order == EntryOrder::KeyDescending || query.order == EntryOrder::UpdatedNewest;
        remote::PgParams params;
        const auto param = [&params](std::string value) {
            params.emplace_back(std::move(value));
            return "$" + std::to_string(params.size());
        };
        std::string sql = R"(SELECT * FROM cache_entries e WHERE TRUE)";
        if (after) {
            const std::string op = descending ? " < " : " > ";
            if (byKey) {
                const std::string k = param(after->key), v = param(after->version), i = param(after->id);
                sql += R"( AND (e."key", e."version", e."id"))" + op + "(" + k + ", " + v + ", " + i + ")";
            } else {
                const std::string u = param(std::to_string(after->updatedAtMs)), i = param(after->id);
                sql += R"( AND (e."updatedAt", e."id"))" + op + "(" + u + "::bigint, " + i + ")";
            }
        }
        if (!query.keyContains.empty())
            sql += keyFilter(param(likePattern(query.keyContains)), param(asciiLower(query.keyContains)));
        const char* dir = descending ? " DESC" : "";
        const std::string orderBy = byKey ? std::string(R"( ORDER BY e."key")") + dir + R"(, e."version")" + dir
                                                + R"(, e."id")" + dir
                                          : std::string(R"( ORDER BY e."updatedAt")") + dir + R"(, e."id")" + dir;
        sql += orderBy;
        sql += " LIMIT " + param(std::to_string(limit)) + "::bigint";
        return entryRows(c->exec(pageJoin(entrySelect_, sql, orderBy), params));
    }

    uint64_t entryCount(const std::string& keyContains) override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        if (keyContains.empty())
            return uint64_t(c->exec("SELECT count(*) FROM cache_entries").i64(0, 0));
        return uint64_t(c->exec("SELECT count(*) FROM cache_entries e WHERE TRUE" + keyFilter("$1", "$2"),
                                {likePattern(keyContains), asciiLower(keyContains)})
                            .i64(0, 0));
    }

    std::vector<EntryRow> entriesChangedSince(int64_t ms) override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        return entryRows(c->exec(entrySelect_ + R"( WHERE e."updatedAt" >= $1 OR l."mergeStartedAt" >= $1)"
                                                R"( OR l."mergedAt" >= $1 OR l."partsDeletedAt" >= $1)"
                                                R"( OR l."lastDownloadedAt" >= $1)",
                                 {std::to_string(ms)}));
    }

    // In the primary key's own collation: an index range per page. With
    // COLLATE "C" each page was a scan and top-N sort of the whole table
    // (150 ms at 1,000,000 rows, 100 pages a rescan), on the server's CPU.
    std::vector<std::string> entryIdsAfter(const std::string& afterId, size_t limit) override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        const PgResult r = c->exec(R"(SELECT "id" FROM cache_entries WHERE "id" > $1 ORDER BY "id" LIMIT $2::bigint)",
                                   {afterId, std::to_string(limit)});
        std::vector<std::string> out;
        out.reserve(size_t(r.rows()));
        for (int i = 0; i < r.rows(); ++i)
            out.push_back(r.text(i, 0));
        return out;
    }

    std::vector<EntryRow> entriesWithIds(const std::vector<std::string>& ids) override
    {
        std::vector<EntryRow> out;
        if (ids.empty())
            return out;
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        // One array parameter: '{"a","b"}' with each id quoted.
        std::string array = "{";
        for (size_t i = 0; i < ids.size(); ++i) {
            array += i ? ",\"" : "\"";
            for (char ch : ids[i]) {
                if (ch == '"' || ch == '\\')
                    array += '\\';
                array += ch;
            }
            array += '"';
        }
        array += "}";
        return entryRows(c->exec(entrySelect_ + R"( WHERE e."id" = ANY($1::text[]))", {array}));
    }

    std::vector<LocationRow> locationsWithoutEntry() override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        const PgResult r = c->exec("SELECT " + locationColumns_ +
                                   R"( FROM storage_locations l WHERE NOT EXISTS)"
                                   R"( (SELECT 1 FROM cache_entries e WHERE e."locationId" = l."id") ORDER BY l."id")");
        return locationRows(r);
    }

    std::vector<LocationRow> locations() override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        const PgResult r = c->exec("SELECT " + locationColumns_ + R"( FROM storage_locations l ORDER BY l."id")");
        return locationRows(r);
    }

    std::vector<UploadRow> uploads() override
    {
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        const PgResult r = c->exec(
            R"(SELECT "id", "key", "version", "scope", "repoId", "createdAt", "lastPartUploadedAt", "folderName", )"
            R"("startedPartUploadCount", "finishedPartUploadCount" FROM uploads ORDER BY "createdAt", "id")");
        return uploadRows(r);
    }

    std::vector<LeaseRow> leases(int64_t atMs) override
    {
        if (!schema_.mergeLeases && !schema_.readerLeases)
            return {};
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        return leasesWhere(*c, {}, atMs);
    }

    std::vector<std::string> otherUsers() override
    {
        // Every server instance keeps a pool of sessions on its database; an
        // idle one is still a running server. Our own session is excluded,
        // and so are other cachescope reads (they name themselves in
        // application_name and hold nothing between calls).
        auto c = connect();
        const PgResult r = c->exec(
            R"(SELECT pid, coalesce(host(client_addr), 'the local socket'), coalesce(application_name, ''), )"
            R"(coalesce(state, '') FROM pg_stat_activity WHERE datname = current_database() )"
            R"(AND pid <> pg_backend_pid() AND backend_type = 'client backend' )"
            R"(AND coalesce(application_name, '') NOT LIKE 'cachescope%' ORDER BY pid)");
        std::vector<std::string> out;
        for (int i = 0; i < r.rows(); ++i) {
            std::string app = r.text(i, 2);
            out.push_back("session " + r.text(i, 0) + " from " + r.text(i, 1) + (app.empty() ? "" : " ('" + app + "')")
                          + (r.text(i, 3).empty() ? "" : ", " + r.text(i, 3)));
        }
        return out;
    }

    std::string changeStamp() override
    {
        // Counts and newest times answer at once; the tables' change
        // counters (inserts, updates, deletes since the statistics began)
        // catch what leaves both alone, within the second PostgreSQL takes
        // to publish them.
        auto c = connect();
        PgTransaction read(*c, PgTransaction::ReadOnly);
        const PgResult r = c->exec(
            R"(SELECT (SELECT count(*) FROM cache_entries)::text, (SELECT count(*) FROM storage_locations)::text, )"
            R"((SELECT count(*) FROM uploads)::text, coalesce((SELECT max("updatedAt") FROM cache_entries)::text, '-'), )"
            R"(coalesce((SELECT max(greatest("mergeStartedAt", "mergedAt", "partsDeletedAt")) FROM storage_locations)::text, '-'), )"
            R"(coalesce((SELECT sum("finishedPartUploadCount") FROM uploads)::text, '-'), )"
            R"(coalesce((SELECT sum(n_tup_ins + n_tup_upd + n_tup_del) FROM pg_stat_user_tables )"
            R"(WHERE relname IN ('cache_entries', 'storage_locations', 'uploads'))::text, '-'))");
        std::string stamp;
        for (int col = 0; col < 7; ++col)
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
        PgTransaction tx(*c, PgTransaction::ReadWrite);
        refuseUnderLease(*c, locationId);
        // The location first, tested in its own DELETE (the row lock it takes
        // holds off the server's UPDATEs until we commit); then its entries.
        if (seen) {
            const PgResult r = c->exec(std::string(R"(DELETE FROM storage_locations WHERE "id" = $1)") + kSeen,
                                       seenParams(locationId, *seen, true));
            if (r.affected() != 1)
                return false;
        } else if (c->exec(R"(SELECT 1 FROM storage_locations WHERE "id" = $1 FOR UPDATE)", {locationId}).rows() != 0) {
            return false;
        }
        c->exec(R"(DELETE FROM cache_entries WHERE "locationId" = $1)", {locationId});
        tx.commit();
        return true;
    }

    bool deleteUpload(const UploadRow& seen) override
    {
        auto c = connectForWrite();
        PgTransaction tx(*c, PgTransaction::ReadWrite);
        const PgResult r = c->exec(
            R"(DELETE FROM uploads WHERE "id" = $1 AND "lastPartUploadedAt" IS NOT DISTINCT FROM $2::bigint )"
            R"(AND "startedPartUploadCount" = $3 AND "finishedPartUploadCount" = $4)",
            {std::to_string(seen.id), optText(seen.lastPartUploadedAtMs), std::to_string(seen.startedPartUploadCount),
             std::to_string(seen.finishedPartUploadCount)});
        tx.commit();
        return r.affected() == 1;
    }

private:
    std::unique_ptr<PgConnection> connect() const { return PgConnection::connect(conninfo_, password_); }

    // Unexpired leases (of one location when locationId is given).
    std::vector<LeaseRow> leasesWhere(PgConnection& c, const std::optional<std::string>& locationId, int64_t atMs) const
    {
        remote::PgParams params{std::to_string(atMs)};
        if (locationId)
            params.push_back(*locationId);
        return leaseRows(schema_.mergeLeases, schema_.readerLeases, leaseQueries('"', "$1::bigint", locationId ? "$2" : ""),
                         [&](const std::string& sql) { return c.exec(sql, params); });
    }
    // In a write's transaction, after locking the location row as the
    // server's download does before it inserts a reader lease (SELECT ..
    // FOR UPDATE): no new reader lease lands between this test and our
    // write. A merge lease the server takes without that lock is seen when
    // it was taken first.
    void refuseUnderLease(PgConnection& c, const std::string& locationId) const
    {
        if (!schema_.mergeLeases && !schema_.readerLeases)
            return;
        c.exec(R"(SELECT 1 FROM storage_locations WHERE "id" = $1 FOR UPDATE)", {locationId});
        const auto held = leasesWhere(c, locationId, nowMs());
        if (!held.empty())
            throw LeaseHeld(leaseSentence(describe_, held.front()), held.front());
    }
    std::unique_ptr<PgConnection> connectForWrite() const
    {
        if (!writable_)
            fail(describe_, "opened read-only: writing needs --write (or the GUI's confirmation)");
        return connect();
    }
    // The merge columns as the plan saw them, from $2 on (IS NOT DISTINCT
    // FROM compares NULL as a value), and lastDownloadedAt for a delete.
    static constexpr const char* kSeen =
        R"( AND "mergeStartedAt" IS NOT DISTINCT FROM $2::bigint AND "mergedAt" IS NOT DISTINCT FROM $3::bigint )"
        R"(AND "partsDeletedAt" IS NOT DISTINCT FROM $4::bigint AND "lastDownloadedAt" IS NOT DISTINCT FROM $5::bigint)";

    static std::optional<std::string> optText(const std::optional<int64_t>& v)
    {
        return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
    }
    static remote::PgParams seenParams(const std::string& id, const LocationRow& seen, bool withDownload)
    {
        remote::PgParams p{id, optText(seen.mergeStartedAtMs), optText(seen.mergedAtMs), optText(seen.partsDeletedAtMs)};
        if (withDownload)
            p.push_back(optText(seen.lastDownloadedAtMs));
        return p;
    }

    bool update(const char* column, const LocationRow& seen, std::optional<int64_t> ms)
    {
        auto c = connectForWrite();
        PgTransaction tx(*c, PgTransaction::ReadWrite);
        refuseUnderLease(*c, seen.id);
        std::string sql = std::string(R"(UPDATE storage_locations SET ")") + column + R"(" = $5::bigint WHERE "id" = $1)";
        sql += std::string(kSeen).substr(0, std::string(kSeen).find(R"( AND "lastDownloadedAt")"));
        remote::PgParams params = seenParams(seen.id, seen, false);
        params.push_back(optText(ms));
        const PgResult r = c->exec(sql, params);
        tx.commit();
        return r.affected() == 1;
    }

    std::string conninfo_;
    std::string password_;   // typed in; never in a message
    std::string describe_;
    bool writable_ = false;
    ServerSchema schema_;
    std::string locationColumns_;   // a location's columns, sizeBytes (or NULL) last
    std::string entrySelect_;       // an entry's columns, then its location's
};

} // namespace

std::unique_ptr<ActionsCatalog> openPostgresCatalog(const std::string& conninfo, bool writable,
                                                    const std::string& password)
{
    return std::make_unique<PostgresCatalog>(conninfo, writable, password);
}

} // namespace cs::actions
