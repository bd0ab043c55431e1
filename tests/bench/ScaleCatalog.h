// The catalog of a cache-server deployment at scale, for the benchmarks
// (bench_scale, bench_actions_sort): the server's tables (migrations
// $0..$3) and N generated rows, on PostgreSQL (generate_series) or SQLite
// (a recursive CTE), in seconds rather than N INSERTs.
//   Entry i: id e-i, key cache-<hash of i> (keys in no useful order, as
//   real ones), location loc-i, folder 1000000000+i, partCount parts,
//   unmerged, scope refs/heads/main, repo 1, updatedAt 1700000000000+i.
#pragma once
#include "core/remote/PgConnection.h"

#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace bench {

// The server's tables and indexes (migrations $0..$3), for both drivers.
inline const char* const kPgSchema[] = {
    R"(CREATE TABLE storage_locations ("id" text PRIMARY KEY, "folderName" text NOT NULL, "partCount" integer NOT NULL,
       "mergeStartedAt" bigint, "mergedAt" bigint, "partsDeletedAt" bigint, "lastDownloadedAt" bigint))",
    R"(CREATE TABLE cache_entries ("id" text PRIMARY KEY, "key" text NOT NULL, "version" text NOT NULL,
       "updatedAt" bigint NOT NULL, "locationId" text NOT NULL REFERENCES storage_locations("id") ON DELETE CASCADE,
       "scope" text NOT NULL, "repoId" text))",
    R"(CREATE TABLE uploads ("id" bigint PRIMARY KEY, "key" text NOT NULL, "version" text NOT NULL, "createdAt" bigint NOT NULL,
       "lastPartUploadedAt" bigint, "folderName" text NOT NULL, "finishedPartUploadCount" integer NOT NULL DEFAULT 0,
       "startedPartUploadCount" integer NOT NULL DEFAULT 0, "scope" text NOT NULL, "repoId" text))",
    R"(CREATE INDEX idx_cache_entries_key_version ON cache_entries ("key", "version"))",
    R"(CREATE INDEX idx_uploads_key_version ON uploads ("key", "version"))",
    R"(CREATE INDEX idx_cache_entries_scope ON cache_entries ("scope"))",
    R"(CREATE INDEX idx_cache_entries_repoId ON cache_entries ("repoId"))",
};

inline void fillPg(cs::remote::PgConnection& c, uint64_t n, int parts)
{
    for (const char* s : kPgSchema)
        c.exec(s);
    c.exec(R"(INSERT INTO storage_locations SELECT 'loc-' || i, (1000000000 + i)::text, $1::int, NULL, NULL, NULL, NULL
              FROM generate_series(1, $2::bigint) i)",
           {std::to_string(parts), std::to_string(n)});
    c.exec(R"(INSERT INTO cache_entries ("id","key","version","updatedAt","locationId","scope","repoId")
              SELECT 'e-' || i, 'cache-' || ((i * 2654435761) % 4294967296), 'v' || (i % 7), 1700000000000 + i,
                     'loc-' || i, 'refs/heads/main', '1' FROM generate_series(1, $1::bigint) i)",
           {std::to_string(n)});
    c.exec("ANALYZE");
}

inline void sqliteExec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::fprintf(stderr, "sqlite: %s\n", err ? err : "?");
        std::exit(1);
    }
}

inline void fillSqlite(const std::string& path, uint64_t n, int parts)
{
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqliteExec(db, "BEGIN");
    for (const char* s : kPgSchema)
        sqliteExec(db, s);
    const std::string count = std::to_string(n);
    sqliteExec(db, "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < " + count +
                       ") INSERT INTO storage_locations SELECT 'loc-' || i, CAST(1000000000 + i AS TEXT), " +
                       std::to_string(parts) + ", NULL, NULL, NULL, NULL FROM s");
    sqliteExec(db, "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < " + count +
                       ") INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) "
                       "SELECT 'e-' || i, 'cache-' || ((i * 2654435761) % 4294967296), 'v' || (i % 7), "
                       "1700000000000 + i, 'loc-' || i, 'refs/heads/main', '1' FROM s");
    sqliteExec(db, "COMMIT");
    sqliteExec(db, "ANALYZE");
    sqlite3_close(db);
}

} // namespace bench
