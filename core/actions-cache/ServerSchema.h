// Which of the server's schema a catalog holds, read from the database's
// own column lists at open (SQLite's pragma_table_info, PostgreSQL's
// pg_attribute, MySQL's information_schema), once for every catalog.
//
// The server's tables grow (its code after v9.4.7, lib/db.ts and
// lib/storage-leases.ts):
//   storage_locations."sizeBytes" bigint, NULL until backfilled: the bytes of
//       the location's folder when its upload completed (adapter
//       getFolderSize), summed for capacity eviction
//   merge_leases(storageLocationId PK, token, expiresAt bigint ms): the one
//       server instance merging a location's parts, renewed every 30 s
//   storage_reader_leases(id PK, storageLocationId, scope 'parts'|'storage',
//       expiresAt bigint ms): a download streaming the location's parts or
//       its merged object; the server's cleanup deletes nothing under one
// cachescope reads the v9.4.7 columns (any other column or table is left
// alone), sizeBytes when it is there, and the lease tables when they are
// there; a write refuses on a location with an unexpired lease. A known
// table without a column cachescope needs is refused in one sentence before
// any row is read: a schema it does not know is never half-read.
#pragma once
#include "core/actions-cache/ActionsBackend.h"
#include "core/util/Error.h"

#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cs::actions {

struct ServerSchema {
    bool sizeBytes = false;      // storage_locations.sizeBytes
    bool mergeLeases = false;    // merge_leases
    bool readerLeases = false;   // storage_reader_leases
};

// The tables whose columns a catalog lists for checkServerSchema.
inline const char* const kServerTables[] = {"storage_locations", "cache_entries", "uploads", "merge_leases",
                                            "storage_reader_leases"};

// columns: table -> its column names, for the kServerTables that exist.
// Throws cs::Error (one sentence, naming where) when a v9.4.7 table or one
// of its columns is missing, or a lease table lacks a column a write needs.
inline ServerSchema checkServerSchema(const std::string& where,
                                      const std::map<std::string, std::set<std::string>>& columns)
{
    struct Need {
        const char* table;
        std::vector<const char*> columns;
    };
    static const Need base[] = {
        {"storage_locations",
         {"id", "folderName", "partCount", "mergeStartedAt", "mergedAt", "partsDeletedAt", "lastDownloadedAt"}},
        {"cache_entries", {"id", "key", "version", "scope", "repoId", "updatedAt", "locationId"}},
        {"uploads",
         {"id", "key", "version", "scope", "repoId", "createdAt", "lastPartUploadedAt", "folderName",
          "startedPartUploadCount", "finishedPartUploadCount"}},
    };
    static const Need leases[] = {
        {"merge_leases", {"storageLocationId", "token", "expiresAt"}},
        {"storage_reader_leases", {"id", "storageLocationId", "scope", "expiresAt"}},
    };
    for (const auto& n : base) {
        const auto t = columns.find(n.table);
        if (t == columns.end())
            fail(where, std::string("has no table '") + n.table
                            + "': not a github-actions-cache-server database (cachescope reads schema v9.4.7 and the "
                              "newer tables it knows)");
        for (const char* c : n.columns)
            if (!t->second.count(c))
                fail(where, std::string("table '") + n.table + "' has no column '" + c
                                + "', which cachescope needs: a schema it does not know (it reads v9.4.7 and the "
                                  "newer columns it knows), so it reads nothing from it");
    }
    for (const auto& n : leases) {
        const auto t = columns.find(n.table);
        if (t == columns.end())
            continue;
        for (const char* c : n.columns)
            if (!t->second.count(c))
                fail(where, std::string("table '") + n.table + "' has no column '" + c
                                + "', so cachescope cannot tell whether the server's leases hold: a schema it does "
                                  "not know, so it reads nothing from it");
    }
    ServerSchema s;
    s.sizeBytes = columns.at("storage_locations").count("sizeBytes") != 0;
    s.mergeLeases = columns.count("merge_leases") != 0;
    s.readerLeases = columns.count("storage_reader_leases") != 0;
    return s;
}

// "2026-12-02 13:05:00 UTC"
inline std::string utcTimeOf(int64_t ms)
{
    const std::time_t t = std::time_t(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

// The sentence a refused write throws (LeaseHeld).
inline std::string leaseSentence(const std::string& where, const LeaseRow& lease)
{
    const bool merge = lease.table == "merge_leases";
    return where + ": storage location '" + lease.storageLocationId + "' is under the server's "
           + (merge ? "merge lease (token " + lease.id + ")"
                    : "reader lease " + lease.id + " (scope " + lease.scope + ")")
           + " until " + utcTimeOf(lease.expiresAtMs) + " in " + lease.table + ": "
           + (merge ? "a server is merging it" : "a download is reading it")
           + "; nothing was written, run again after the lease expires";
}

} // namespace cs::actions
