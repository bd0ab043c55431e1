// A fixture data dir (ActionsCacheFixture: every state) loaded into the
// server's other deployments on the test servers (TestServers.h), by writers
// independent of the code under test: the rows read with SQLite's C API and
// written into PostgreSQL's or MySQL's v9 tables as text parameters, the
// files PUT one by one into the bucket under PREFIX/<folder>/...
#pragma once
#include "common/MysqlSchema.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/remote/MysqlConnection.h"
#include "core/remote/PgConnection.h"
#include "core/remote/S3Client.h"
#include "core/util/Error.h"

#include <QDirIterator>

#include <sqlite3.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace testsupport {

// The server's PostgreSQL tables after migrations $0..$3 (kysely: quoted camelCase).
inline const char* const kPgSchema = R"(
CREATE TABLE storage_locations ("id" text PRIMARY KEY, "folderName" text NOT NULL, "partCount" integer NOT NULL,
  "mergeStartedAt" bigint, "mergedAt" bigint, "partsDeletedAt" bigint, "lastDownloadedAt" bigint);
CREATE TABLE cache_entries ("id" text PRIMARY KEY, "key" text NOT NULL, "version" text NOT NULL,
  "updatedAt" bigint NOT NULL, "locationId" text NOT NULL REFERENCES storage_locations("id") ON DELETE CASCADE,
  "scope" text NOT NULL, "repoId" text);
CREATE TABLE uploads ("id" bigint PRIMARY KEY, "key" text NOT NULL, "version" text NOT NULL, "createdAt" bigint NOT NULL,
  "lastPartUploadedAt" bigint, "folderName" text NOT NULL, "finishedPartUploadCount" integer NOT NULL DEFAULT 0,
  "startedPartUploadCount" integer NOT NULL DEFAULT 0, "scope" text NOT NULL, "repoId" text);
CREATE INDEX idx_cache_entries_key_version ON cache_entries ("key", "version");
CREATE INDEX idx_uploads_key_version ON uploads ("key", "version");
CREATE INDEX idx_cache_entries_repoId ON cache_entries ("repoId");
CREATE INDEX idx_uploads_repoId ON uploads ("repoId");
)";

inline void createPgSchema(cs::remote::PgConnection& pg)
{
    for (const QString& statement : QString(kPgSchema).split(';', Qt::SkipEmptyParts))
        if (!statement.trimmed().isEmpty())
            pg.exec(statement.toStdString());
}

// Calls row(table, columns, values) for every row of the fixture's three
// tables, read with SQLite's C API (values as text, NULL as nullopt). Throws cs::Error.
using FixtureRow = std::function<void(const std::string& table, const std::vector<std::string>& columns,
                                      const std::vector<std::optional<std::string>>& values)>;
inline void forEachFixtureRow(const QString& sqlitePath, const FixtureRow& row)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(sqlitePath.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw cs::Error("cannot open " + sqlitePath.toStdString());
    }
    for (const char* table : {"storage_locations", "cache_entries", "uploads"}) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, (std::string("SELECT * FROM ") + table).c_str(), -1, &st, nullptr) != SQLITE_OK) {
            sqlite3_close(db);
            throw cs::Error(std::string("cannot read table ") + table);
        }
        const int n = sqlite3_column_count(st);
        std::vector<std::string> columns;
        for (int i = 0; i < n; ++i)
            columns.emplace_back(sqlite3_column_name(st, i));
        try {
            while (sqlite3_step(st) == SQLITE_ROW) {
                std::vector<std::optional<std::string>> values;
                for (int i = 0; i < n; ++i)
                    values.push_back(sqlite3_column_type(st, i) == SQLITE_NULL
                                         ? std::nullopt
                                         : std::optional<std::string>(
                                               reinterpret_cast<const char*>(sqlite3_column_text(st, i))));
                row(table, columns, values);
            }
        } catch (...) {
            sqlite3_finalize(st);
            sqlite3_close(db);
            throw;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

// Copies every row of the fixture's SQLite tables into PostgreSQL. Throws cs::Error.
inline void loadRows(const QString& sqlitePath, cs::remote::PgConnection& pg)
{
    createPgSchema(pg);
    forEachFixtureRow(sqlitePath, [&pg](const std::string& table, const std::vector<std::string>& columns,
                                        const std::vector<std::optional<std::string>>& values) {
        std::string cols, params;
        for (size_t i = 0; i < columns.size(); ++i) {
            cols += std::string(i ? "," : "") + "\"" + columns[i] + "\"";
            params += std::string(i ? "," : "") + "$" + std::to_string(i + 1);
        }
        pg.exec("INSERT INTO " + table + " (" + cols + ") VALUES (" + params + ")", values);
    });
}

// Copies every row of the fixture's SQLite tables into MySQL. Throws cs::Error.
inline void loadRows(const QString& sqlitePath, cs::remote::MysqlConnection& my)
{
    createMysqlSchema(my);
    forEachFixtureRow(sqlitePath, [&my](const std::string& table, const std::vector<std::string>& columns,
                                        const std::vector<std::optional<std::string>>& values) {
        std::string cols, params;
        cs::remote::MysqlParams bound;
        for (size_t i = 0; i < columns.size(); ++i) {
            cols += std::string(i ? "," : "") + "`" + columns[i] + "`";
            params += std::string(i ? "," : "") + "?";
            bound.push_back(values[i] ? cs::remote::MysqlValue::of(*values[i]) : cs::remote::MysqlValue{});
        }
        my.exec("INSERT INTO " + table + " (" + cols + ") VALUES (" + params + ")", bound);
    });
}

// PUTs every file below storageDir as prefix/<relative path>.
inline void uploadStorage(cs::remote::S3Client& s3, const std::string& prefix, const QString& storageDir)
{
    QDirIterator it(storageDir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QByteArray bytes = readFile(path);
        s3.put(prefix + "/" + QDir(storageDir).relativeFilePath(path).toStdString(),
               std::string_view(bytes.constData(), size_t(bytes.size())));
    }
}

// Every row of the server's three tables, in id order, as text: compared
// before and after a command that must change nothing.
inline std::string dumpServerRows(cs::remote::PgConnection& pg)
{
    std::string out;
    for (const char* table : {"storage_locations", "cache_entries", "uploads"}) {
        const auto r = pg.exec(std::string("SELECT * FROM ") + table + " ORDER BY 1");
        for (int i = 0; i < r.rows(); ++i) {
            for (int c = 0; c < r.columns(); ++c)
                out += (r.isNull(i, c) ? std::string("NULL") : r.text(i, c)) + "|";
            out += "\n";
        }
    }
    return out;
}

// The bucket's listing (key, size, ETag of every object), the same way.
inline std::string listBucket(cs::remote::S3Client& s3)
{
    std::string out;
    s3.list("", [&](const cs::remote::S3Page& page) {
        for (const auto& o : page)
            out += o.key + " " + std::to_string(o.size) + " " + o.etag + "\n";
    });
    return out;
}

} // namespace testsupport
