// A github-actions-cache-server data dir built the way the server v9.4.7
// leaves one (lib/migrations.ts $0_init .. $3_repoId through kysely and
// better-sqlite3: rollback journal "delete", the kysely_migration tables,
// timestamps in epoch ms; storage objects <folder>/parts/<i> and
// <folder>/merged). Written with SQLite's C API and plain file writes, not
// with cachescope, so tests check our reader against an independent writer.
//
// Every state a reader meets, one folder each:
//   1001 merged, parts deleted (the server's end state), downloaded 2 days ago
//   1002 merged, parts still there (a crash before the parts went)
//   1003 unmerged, 12 parts written out of order (11, 10, 9 .. 0: part 10
//        lands after 9 and sorts before 2 lexically), never downloaded
//   1004 merge started 2 h ago and stalled: a partial merged, parts intact
//   1005 never downloaded, updated 40 days ago, 1 part (eviction by age)
//   1006 a location row no entry names (with a merged object)
//   7001 an unfinished upload: 3 parts started, 2 finished and present
//   9999 an orphan folder: no row names it
// Used by tests/core (library, CLI) and tests/ui (the GUI document).
#pragma once
#include "common/TestSupport.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QString>
#include <QVector>

#include <sqlite3.h>

#include <string>

namespace testsupport {

struct FixtureEntry {
    QString id;          // cache_entries.id
    QString key;
    QString version;
    QString folder;      // storage_locations.folderName
    QString state;       // as `actions-cache ls` names it
    QByteArray blob{};   // the stored blob: merged, or parts concatenated in numeric order
    qint64 size = 0;     // what ls reports as size (merged object, else the parts present)
    int partCount = 0;   // as the row claims
    QVector<QByteArray> parts{}; // parts on disk, by index (empty when deleted)
};

class ActionsCacheFixture {
public:
    static constexpr const char* kServerVersion = "9.4.7";

    enum class Layout {
        ServerDefault, // DATA_DIR/sqlite.db + DATA_DIR/storage/filesystem/<folder>
        Flat,          // DATA_DIR/sqlite.db + DATA_DIR/storage/<folder>
    };

    // Builds the data dir in `dir` (which must exist and be empty).
    explicit ActionsCacheFixture(const QString& dir, Layout layout = Layout::ServerDefault)
        : dataDir_(dir), now_(QDateTime::currentMSecsSinceEpoch())
    {
        storageDir_ = layout == Layout::ServerDefault ? dir + "/storage/filesystem" : dir + "/storage";
        dbPath_ = dir + "/sqlite.db";
        QDir().mkpath(storageDir_);
        open();
        sql("BEGIN"); // one commit: one fsync instead of one per statement
        createSchema();
        build();
        sql("COMMIT");
        close();
    }
    ~ActionsCacheFixture() { close(); }

    QString dataDir() const { return dataDir_; }
    QString dbPath() const { return dbPath_; }
    QString storageDir() const { return storageDir_; }
    qint64 builtAtMs() const { return now_; }

    const QVector<FixtureEntry>& entries() const { return entries_; }
    const FixtureEntry& entry(const QString& folder) const
    {
        for (const auto& e : entries_)
            if (e.folder == folder)
                return e;
        qFatal("fixture: no entry in folder %s", qPrintable(folder));
    }
    // Location, upload and folder ids of the states that are not entries.
    static QString locationWithoutEntryId() { return QStringLiteral("0b6e2d0c-1006-4c55-9a51-000000001006"); }
    static QString locationWithoutEntryFolder() { return QStringLiteral("1006"); }
    static qint64 unfinishedUploadId() { return 7001; }
    static QString orphanFolder() { return QStringLiteral("9999"); }

    // Runs SQL on the database as the server would (for tests that change
    // a row: an upload touched now, a damaged count).
    void exec(const QString& sql)
    {
        open();
        char* err = nullptr;
        if (sqlite3_exec(db_, sql.toUtf8().constData(), nullptr, nullptr, &err) != SQLITE_OK) {
            const QString msg = QString::fromUtf8(err ? err : "?");
            sqlite3_free(err);
            close();
            qFatal("fixture SQL failed: %s", qPrintable(msg));
        }
        close();
    }

private:
    void open()
    {
        if (!db_ && sqlite3_open(dbPath_.toUtf8().constData(), &db_) != SQLITE_OK)
            qFatal("fixture: cannot open %s", qPrintable(dbPath_));
    }
    void close()
    {
        if (db_)
            sqlite3_close(db_);
        db_ = nullptr;
    }
    void sql(const std::string& s)
    {
        char* err = nullptr;
        if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
            qFatal("fixture SQL failed: %s in %s", err ? err : "?", s.c_str());
    }
    static std::string q(const QString& s) { return "'" + s.toStdString() + "'"; }
    static std::string n(qint64 v) { return std::to_string(v); }
    static std::string opt(qint64 v) { return v ? std::to_string(v) : std::string("NULL"); }

    // The DDL kysely's SQLite dialect emits for the server's migrations.
    void createSchema()
    {
        sql("CREATE TABLE \"kysely_migration\" (\"name\" varchar(255) not null primary key, "
            "\"timestamp\" varchar(255) not null)");
        sql("CREATE TABLE \"kysely_migration_lock\" (\"id\" varchar(255) not null primary key, "
            "\"is_locked\" integer default 0 not null)");
        sql("INSERT INTO kysely_migration_lock VALUES ('migration_lock', 0)");
        // $0_init
        sql("create table \"storage_locations\" (\"id\" text primary key, \"folderName\" text not null, "
            "\"partCount\" integer not null, \"mergeStartedAt\" bigint, \"mergedAt\" bigint, "
            "\"partsDeletedAt\" bigint, \"lastDownloadedAt\" bigint)");
        sql("create table \"cache_entries\" (\"id\" text primary key, \"key\" text not null, "
            "\"version\" text not null, \"updatedAt\" bigint not null, \"locationId\" text not null "
            "references \"storage_locations\" (\"id\") on delete cascade)");
        sql("create table \"uploads\" (\"id\" bigint primary key, \"key\" text not null, \"version\" text not null, "
            "\"createdAt\" bigint not null, \"lastPartUploadedAt\" bigint, \"folderName\" text not null)");
        sql("create index \"idx_cache_entries_key_version\" on \"cache_entries\" (\"key\", \"version\")");
        sql("create index \"idx_uploads_key_version\" on \"uploads\" (\"key\", \"version\")");
        // $1_upload_part_counts
        sql("alter table \"uploads\" add column \"finishedPartUploadCount\" integer default 0 not null");
        sql("alter table \"uploads\" add column \"startedPartUploadCount\" integer default 0 not null");
        // $2_scopes
        sql("alter table \"cache_entries\" add column \"scope\" text not null");
        sql("create index \"idx_cache_entries_scope\" on \"cache_entries\" (\"scope\")");
        sql("alter table \"uploads\" add column \"scope\" text not null");
        sql("create index \"idx_uploads_scope\" on \"uploads\" (\"scope\")");
        // $3_repoId
        sql("alter table \"cache_entries\" add column \"repoId\" text not null");
        sql("create index \"idx_cache_entries_repoId\" on \"cache_entries\" (\"repoId\")");
        sql("alter table \"uploads\" add column \"repoId\" text not null");
        sql("create index \"idx_uploads_repoId\" on \"uploads\" (\"repoId\")");
        for (const char* m : {"$0_init", "$1_upload_part_counts", "$2_scopes", "$3_repoId"})
            sql(std::string("INSERT INTO kysely_migration VALUES ('") + m + "', '2025-01-01T00:00:00.000Z')");
    }

    QString folderPath(const QString& folder) const { return storageDir_ + "/" + folder; }

    // Parts of sizes[i] bytes, written to disk in `order`.
    QVector<QByteArray> writeParts(const QString& folder, const QVector<int>& sizes, const QVector<int>& order,
                                   uint64_t seed)
    {
        QVector<QByteArray> parts;
        for (int i = 0; i < sizes.size(); ++i)
            parts.push_back(i % 2 ? textBytes(sizes[i], seed + uint64_t(i)) : randomBytes(sizes[i], seed + uint64_t(i)));
        QDir().mkpath(folderPath(folder) + "/parts");
        for (int i : order)
            if (!writeFile(folderPath(folder) + "/parts/" + QString::number(i), parts[i]))
                qFatal("fixture: cannot write a part");
        return parts;
    }

    static QByteArray concat(const QVector<QByteArray>& parts)
    {
        QByteArray all;
        for (const auto& p : parts)
            all += p;
        return all;
    }

    void addRows(const FixtureEntry& e, qint64 updatedAt, qint64 mergeStartedAt, qint64 mergedAt,
                 qint64 partsDeletedAt, qint64 lastDownloadedAt)
    {
        const QString location = "0b6e2d0c-" + e.folder + "-4c55-9a51-00000000" + e.folder;
        sql("INSERT INTO storage_locations VALUES (" + q(location) + ", " + q(e.folder) + ", " + n(e.partCount) + ", "
            + opt(mergeStartedAt) + ", " + opt(mergedAt) + ", " + opt(partsDeletedAt) + ", " + opt(lastDownloadedAt)
            + ")");
        sql("INSERT INTO cache_entries (id, key, version, updatedAt, locationId, scope, repoId) VALUES (" + q(e.id)
            + ", " + q(e.key) + ", " + q(e.version) + ", " + n(updatedAt) + ", " + q(location)
            + ", 'refs/heads/main', '1')");
        entries_.push_back(e);
    }

    void build()
    {
        const qint64 minute = 60 * 1000, hour = 60 * minute, day = 24 * hour;
        const QString version = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        // 1001: merged, parts deleted.
        {
            FixtureEntry e{"5f0c7a52-0000-4000-8000-000000001001", "linux-cargo-merged", version, "1001",
                           "parts deleted"};
            e.blob = concat({randomBytes(70000, 11), textBytes(50000, 12), randomBytes(1234, 13)});
            e.partCount = 3;
            e.size = e.blob.size();
            QDir().mkpath(folderPath("1001"));
            writeFile(folderPath("1001") + "/merged", e.blob);
            addRows(e, now_ - 3 * day, now_ - 3 * day + minute, now_ - 3 * day + 2 * minute,
                    now_ - 3 * day + 2 * minute, now_ - 2 * day);
        }
        // 1002: merged, parts left.
        {
            FixtureEntry e{"5f0c7a52-0000-4000-8000-000000001002", "linux-node-merged-parts-left", version, "1002",
                           "merged"};
            e.parts = writeParts("1002", {40000, 30000}, {0, 1}, 20);
            e.blob = concat(e.parts);
            e.partCount = 2;
            e.size = e.blob.size();
            writeFile(folderPath("1002") + "/merged", e.blob);
            addRows(e, now_ - 2 * day, now_ - 2 * day + minute, now_ - 2 * day + 2 * minute, 0, now_ - 1 * day);
        }
        // 1003: unmerged, 12 parts out of order, never downloaded.
        {
            FixtureEntry e{"5f0c7a52-0000-4000-8000-000000001003", "buildkit-unmerged-12-parts", version, "1003",
                           "unmerged"};
            QVector<int> sizes, order;
            for (int i = 0; i < 12; ++i) {
                sizes.push_back(1000 + 777 * i);
                order.push_front(i); // 11, 10, 9 .. 0
            }
            e.parts = writeParts("1003", sizes, order, 30);
            e.blob = concat(e.parts);
            e.partCount = 12;
            e.size = e.blob.size();
            addRows(e, now_ - 1 * day, 0, 0, 0, 0);
        }
        // 1004: merge started and stalled: the server writes merged in place.
        {
            FixtureEntry e{"5f0c7a52-0000-4000-8000-000000001004", "windows-merge-stalled", version, "1004",
                           "merge started"};
            e.parts = writeParts("1004", {50000, 20000}, {1, 0}, 40);
            e.blob = concat(e.parts);
            e.partCount = 2;
            e.size = e.blob.size();
            writeFile(folderPath("1004") + "/merged", e.parts[0].left(10000));
            addRows(e, now_ - 5 * hour, now_ - 2 * hour, 0, 0, now_ - 2 * hour);
        }
        // 1005: never downloaded, old.
        {
            FixtureEntry e{"5f0c7a52-0000-4000-8000-000000001005", "macos-never-downloaded", version, "1005",
                           "unmerged"};
            e.parts = writeParts("1005", {3333}, {0}, 50);
            e.blob = concat(e.parts);
            e.partCount = 1;
            e.size = e.blob.size();
            addRows(e, now_ - 40 * day, 0, 0, 0, 0);
        }
        // 1006: a location without an entry.
        QDir().mkpath(folderPath("1006"));
        writeFile(folderPath("1006") + "/merged", randomBytes(4096, 60));
        sql("INSERT INTO storage_locations VALUES (" + q(locationWithoutEntryId()) + ", '1006', 1, " + n(now_ - 9 * day)
            + ", " + n(now_ - 9 * day) + ", " + n(now_ - 9 * day) + ", NULL)");
        // 7001: an unfinished upload.
        writeParts("7001", {2048, 2048, 2048}, {2, 0}, 70);
        sql("INSERT INTO uploads (id, key, version, createdAt, lastPartUploadedAt, folderName, "
            "finishedPartUploadCount, startedPartUploadCount, scope, repoId) VALUES (7001, 'upload-never-finished', "
            + q(version) + ", " + n(now_ - 2 * hour) + ", " + n(now_ - 90 * minute)
            + ", '7001', 2, 3, 'refs/heads/main', '1')");
        // 9999: an orphan folder.
        writeParts("9999", {5000}, {0}, 99);
    }

    QString dataDir_, storageDir_, dbPath_;
    qint64 now_;
    sqlite3* db_ = nullptr;
    QVector<FixtureEntry> entries_;
};

} // namespace testsupport
