// The server's rows as the remote catalogs read them, once for both
// (PostgresCatalog, MysqlCatalog): a result type with text, i64, optI64 and
// isNull by row and column (PgResult, MysqlResult), and the columns in the
// order each catalog's SELECT names them.
#pragma once
#include "core/actions-cache/ActionsBackend.h"

#include <string>
#include <vector>

namespace cs::actions {

// id, folderName, partCount, mergeStartedAt, mergedAt, partsDeletedAt,
// lastDownloadedAt, sizeBytes (NULL on a schema without it), from column c on.
template <typename Result>
LocationRow locationAt(const Result& r, int row, int c)
{
    LocationRow l;
    l.id = r.text(row, c);
    l.folderName = r.text(row, c + 1);
    l.partCount = r.i64(row, c + 2);
    l.mergeStartedAtMs = r.optI64(row, c + 3);
    l.mergedAtMs = r.optI64(row, c + 4);
    l.partsDeletedAtMs = r.optI64(row, c + 5);
    l.lastDownloadedAtMs = r.optI64(row, c + 6);
    l.sizeBytes = r.optI64(row, c + 7);
    return l;
}

template <typename Result>
std::vector<LocationRow> locationRows(const Result& r)
{
    std::vector<LocationRow> out;
    out.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(locationAt(r, i, 0));
    return out;
}

// id, key, version, scope, repoId, updatedAt, locationId, then the location's
// columns (NULL when the entry's location row is missing).
template <typename Result>
std::vector<EntryRow> entryRows(const Result& r)
{
    std::vector<EntryRow> out;
    out.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        EntryRow e;
        e.id = r.text(i, 0);
        e.key = r.text(i, 1);
        e.version = r.text(i, 2);
        e.scope = r.text(i, 3);
        e.repoId = r.isNull(i, 4) ? std::string() : r.text(i, 4);
        e.updatedAtMs = r.i64(i, 5);
        e.locationId = r.text(i, 6);
        if (!r.isNull(i, 7))
            e.location = locationAt(r, i, 7);
        out.push_back(std::move(e));
    }
    return out;
}

// id, key, version, scope, repoId, createdAt, lastPartUploadedAt,
// folderName, startedPartUploadCount, finishedPartUploadCount.
template <typename Result>
std::vector<UploadRow> uploadRows(const Result& r)
{
    std::vector<UploadRow> out;
    for (int i = 0; i < r.rows(); ++i) {
        UploadRow u;
        u.id = r.i64(i, 0);
        u.key = r.text(i, 1);
        u.version = r.text(i, 2);
        u.scope = r.text(i, 3);
        u.repoId = r.isNull(i, 4) ? std::string() : r.text(i, 4);
        u.createdAtMs = r.i64(i, 5);
        u.lastPartUploadedAtMs = r.optI64(i, 6);
        u.folderName = r.text(i, 7);
        u.startedPartUploadCount = r.i64(i, 8);
        u.finishedPartUploadCount = r.i64(i, 9);
        out.push_back(std::move(u));
    }
    return out;
}

// A lease table's rows: id, storageLocationId, [scope,] expiresAt (ms);
// merge_leases has no scope column (its id is the token).
template <typename Result>
void appendLeaseRows(const Result& r, const char* table, bool withScope, std::vector<LeaseRow>& out)
{
    for (int i = 0; i < r.rows(); ++i)
        out.push_back({table, r.text(i, 0), r.text(i, 1), withScope ? r.text(i, 2) : std::string(),
                       r.i64(i, withScope ? 3 : 2)});
}

// The two lease queries in a catalog's SQL: `quote` around the names, `at`
// the placeholder of the time (ms), `location` that of the location id (""
// for every location).
struct LeaseQueries {
    std::string merge, reader;
};

inline LeaseQueries leaseQueries(char quote, const std::string& at, const std::string& location)
{
    const auto q = [quote](const char* name) { return quote + std::string(name) + quote; };
    const std::string where = " WHERE " + q("expiresAt") + " > " + at +
                              (location.empty() ? std::string() : " AND " + q("storageLocationId") + " = " + location);
    return {"SELECT " + q("token") + ", " + q("storageLocationId") + ", " + q("expiresAt") + " FROM merge_leases" + where +
                " ORDER BY " + q("storageLocationId"),
            "SELECT " + q("id") + ", " + q("storageLocationId") + ", " + q("scope") + ", " + q("expiresAt") +
                " FROM storage_reader_leases" + where + " ORDER BY " + q("storageLocationId") + ", " + q("id")};
}

// The unexpired leases of the tables the schema has, each query run by
// exec(sql), which returns its Result.
template <typename Exec>
std::vector<LeaseRow> leaseRows(bool mergeLeases, bool readerLeases, const LeaseQueries& sql, Exec&& exec)
{
    std::vector<LeaseRow> out;
    if (mergeLeases)
        appendLeaseRows(exec(sql.merge), "merge_leases", false, out);
    if (readerLeases)
        appendLeaseRows(exec(sql.reader), "storage_reader_leases", true, out);
    return out;
}

} // namespace cs::actions
