// The actions-cache operations on the server's other deployment: catalog in
// PostgreSQL, storage in S3, both real servers started here. The fixture's
// data dir (every state) is loaded into both with independent writers (SQL
// of the server's v9 schema for PostgreSQL, plain PUTs for S3), and every
// read must agree with the same operation on the SQLite + folder layout.
#include "common/ActionsCacheFixture.h"
#include "common/CatalogPaging.h"
#include "common/DeploymentSummary.h"
#include "common/IndexChecks.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/actions-cache/SizeIndex.h"
#include "core/jobs/Job.h"
#include "core/remote/PgConnection.h"
#include "core/remote/S3Client.h"
#include "core/util/Error.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>

#include <map>
#include <algorithm>
#include <set>
#include <tuple>

using namespace cs;
using namespace cs::actions;

class TestActionsRemote : public QObject {
    Q_OBJECT

    testsupport::PgTestServer pg_;
    testsupport::S3TestServer s3server_;
    QTemporaryDir dir_;
    std::unique_ptr<testsupport::ActionsCacheFixture> fixture_;
    int dbCounter_ = 0;

    struct Deployment {
        std::string conninfo;
        remote::S3Config s3;
    };

    // cachescope-cli actions-cache COMMAND on deployment d, by its URLs (the
    // environment gets the S3 credentials and extra); waits for its end.
    void cliOn(QProcess& p, const Deployment& d, const QStringList& command,
               const QList<std::pair<QString, QString>>& extra = {})
    {
        const QString db = pg_.url(QString::fromStdString(d.conninfo.substr(d.conninfo.rfind('=') + 1)));
        const QString storage = QString::fromStdString("s3://" + d.s3.bucket + "/" + d.s3.prefix);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("AWS_ACCESS_KEY_ID", testsupport::S3TestServer::accessKeyId());
        env.insert("AWS_SECRET_ACCESS_KEY", testsupport::S3TestServer::secretAccessKey());
        for (const auto& [name, value] : extra)
            env.insert(name, value);
        p.setProcessEnvironment(env);
        p.start(CACHESCOPE_CLI, QStringList{"actions-cache"} + command
                                    + QStringList{"--db", db, "--storage", storage, "--endpoint", s3server_.endpoint()});
        p.waitForFinished(600000);
    }

    // A fresh database and bucket prefix holding the fixture.
    Deployment deploy()
    {
        const std::string name = "d" + std::to_string(++dbCounter_);
        auto admin = remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE " + name);
        Deployment d;
        d.conninfo = pg_.conninfo(QString::fromStdString(name)).toStdString();
        auto c = remote::PgConnection::connect(d.conninfo);
        testsupport::loadRows(fixture_->dbPath(), *c);
        d.s3.endpoint = s3server_.endpoint().toStdString();
        d.s3.bucket = "cache";
        d.s3.prefix = name + "/" + kServerKeyPrefix; // one bucket, a root per deployment
        d.s3.accessKeyId = testsupport::S3TestServer::accessKeyId().toStdString();
        d.s3.secretAccessKey = testsupport::S3TestServer::secretAccessKey().toStdString();
        remote::S3Config loader = d.s3;
        loader.prefix.clear();
        remote::S3Client s3(loader);
        testsupport::uploadStorage(s3, d.s3.prefix, fixture_->storageDir());
        return d;
    }

    std::unique_ptr<ActionsCache> openRemote(const Deployment& d, bool writable)
    {
        return std::make_unique<ActionsCache>(openPostgresCatalog(d.conninfo, writable), openS3Storage(d.s3));
    }

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
        QVERIFY2(s3server_.start({"cache"}, &why), qPrintable("cannot start the S3 test server: " + why));
        QVERIFY(dir_.isValid());
        fixture_ = std::make_unique<testsupport::ActionsCacheFixture>(dir_.path());
    }

    void listingAndVerifyAgreeWithTheDataDir()
    {
        const Deployment d = deploy();
        auto local = ActionsCache::open(resolveDataDir(fixture_->dataDir().toStdString()));
        auto remote = openRemote(d, false);
        const auto want = testsupport::entrySummary(local->entries());
        QCOMPARE(int(want.size()), 5);
        QCOMPARE(testsupport::entrySummary(remote->entries()), want);
        QCOMPARE(remote->uploads().size(), local->uploads().size());
        Job j1, j2;
        const auto localFindings = testsupport::findingKinds(local->verify(j1));
        QVERIFY(!localFindings.empty());
        const auto remoteFindings = testsupport::findingKinds(remote->verify(j2));
        if (remoteFindings != localFindings) {
            for (const auto& k : localFindings)
                qWarning("data dir: %s", k.c_str());
            for (const auto& k : remoteFindings)
                qWarning("deployment: %s", k.c_str());
        }
        QCOMPARE(remoteFindings, localFindings);
        // Parts are in numeric order, read back byte-exact through ranged GETs.
        for (const auto& e : remote->entries())
            if (e.folderName == "1003") {
                const auto parts = remote->parts(e);
                QCOMPARE(int(parts.size()), 12);
                for (size_t i = 0; i < parts.size(); ++i)
                    QCOMPARE(parts[i].index, uint64_t(i));
                QByteArray all;
                char buf[3000];
                for (const auto& p : parts) {
                    auto in = remote->storage().openPart("1003", p.index);
                    while (size_t n = in->read(buf, sizeof buf))
                        all.append(buf, qsizetype(n));
                }
                for (const auto& f : fixture_->entries())
                    if (f.folder == "1003")
                        QVERIFY(all == f.blob);
            }
    }

    void readsChangeNoRowAndNoObject()
    {
        const Deployment d = deploy();
        auto pg = remote::PgConnection::connect(d.conninfo);
        remote::S3Config all = d.s3;
        all.prefix.clear();
        remote::S3Client s3(all);
        const std::string rowsBefore = testsupport::dumpServerRows(*pg), objectsBefore = testsupport::listBucket(s3);
        {
            auto cache = openRemote(d, false);
            Job job;
            cache->entries();
            cache->uploads();
            cache->verify(job);
            cache->activity();
            cache->planMerge({});
            ActionsEvictPolicy everything;
            everything.olderThanMs = 0;
            cache->planEvict(everything);
            cache->planRemoveOrphans();
            // A read-only catalog refuses writes before touching anything.
            Job merge;
            QVERIFY_THROWS_EXCEPTION(Error, cache->merge({}, merge, WriteOptions{true}));
        }
        QCOMPARE(testsupport::dumpServerRows(*pg), rowsBefore);
        QCOMPARE(testsupport::listBucket(s3), objectsBefore);
    }

    void mergeStreamsPartsIntoS3()
    {
        const Deployment d = deploy();
        auto cache = openRemote(d, true);
        std::string id;
        QByteArray blob;
        for (const auto& f : fixture_->entries())
            if (f.folder == "1003") {
                id = f.id.toStdString();
                blob = f.blob;
            }
        Job job;
        const auto results = cache->merge({id}, job, WriteOptions{true, 0});   // no grace: parts go at once
        QCOMPARE(int(results.size()), 1);
        QVERIFY(results[0].merged);
        QCOMPARE(results[0].bytes, uint64_t(blob.size()));
        for (const auto& e : cache->entries())
            if (e.id == id) {
                QCOMPARE(std::string(entryStateName(e.state)), std::string("parts deleted"));
                QCOMPARE(e.partsPresent, uint64_t(0));
                QCOMPARE(e.size, uint64_t(blob.size()));
            }
        QByteArray merged;
        char buf[4096];
        auto in = cache->storage().openMerged("1003");
        while (size_t n = in->read(buf, sizeof buf))
            merged.append(buf, qsizetype(n));
        QVERIFY(merged == blob); // parts concatenated in numeric order
    }

    void crashBetweenPutAndRowUpdateIsReportedAndRepaired()
    {
        const Deployment d = deploy();
        std::string id;
        QByteArray blob;
        for (const auto& f : fixture_->entries())
            if (f.folder == "1005") {
                id = f.id.toStdString();
                blob = f.blob;
            }
        // The merged object is published (CompleteMultipartUpload / PUT),
        // then the process dies before mergedAt is written. A CLI child, not
        // a fork of this multi-threaded test: the merge starts threads, which
        // a forked child of a multi-threaded process may not do under TSan.
        QProcess merge;
        cliOn(merge, d, {"merge", QString::fromStdString(id), "--write", "--force", "--quiet"},
              {{"CACHESCOPE_ACTIONS_KILL_AT", "merged-published"}});
        QVERIFY2(merge.exitStatus() == QProcess::CrashExit, merge.readAllStandardError().constData());
        QVERIFY2(merge.exitCode() == SIGKILL, "the merge did not die at its kill point");
        auto cache = openRemote(d, true);
        bool seen = false;
        for (const auto& e : cache->entries())
            if (e.id == id) {
                seen = true;
                QCOMPARE(std::string(entryStateName(e.state)), std::string("merge started"));
                QVERIFY(e.mergedPresent);
                QCOMPARE(e.partsPresent, uint64_t(1));
            }
        QVERIFY(seen);
        // Until the server's 15-minute reset a started merge may still be
        // running; past it, verify names it. Let that time pass in the row.
        auto pg = remote::PgConnection::connect(d.conninfo);
        pg->exec(R"(UPDATE storage_locations SET "mergeStartedAt" = "mergeStartedAt" - 20 * 60 * 1000 WHERE "folderName" = '1005')");
        Job verify;
        const auto findings = testsupport::findingKinds(cache->verify(verify));
        QVERIFY2(findings.count("stalled-merge 1005"), "verify does not report the interrupted merge");
        Job again;
        cache->merge({id}, again, WriteOptions{true, 0});
        for (const auto& e : cache->entries())
            if (e.id == id) {
                QCOMPARE(std::string(entryStateName(e.state)), std::string("parts deleted"));
                QCOMPARE(e.size, uint64_t(blob.size()));
            }
    }

    void cliOpensTheDeploymentByUrl()
    {
        const Deployment d = deploy();
        QProcess p;
        cliOn(p, d, {"ls", "--json"});
        QVERIFY(p.state() == QProcess::NotRunning && p.exitStatus() == QProcess::NormalExit);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(o["entries"].toArray().size(), 5);
        for (const auto& v : o["entries"].toArray())
            if (v.toObject()["folder"].toString() == "1003") {
                QCOMPARE(v.toObject()["state"].toString(), QString("unmerged"));
                QCOMPARE(qint64(v.toObject()["size"].toDouble()), fixture_->entry("1003").size);
            }
    }

    void badLocationsGiveOneSentence()
    {
        try {
            openPostgresCatalog(pg_.conninfo("no_such_database").toStdString() + " password=pw-never-shown", false);
            QFAIL("opened a missing database");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("pw-never-shown") == std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("no_such_database") != std::string::npos, e.what());
        }
        auto admin = remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE notacache");
        try {
            openPostgresCatalog(pg_.conninfo("notacache").toStdString(), false);
            QFAIL("opened a database without the server's tables");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("storage_locations") != std::string::npos, e.what());
        }
        remote::S3Config missing;
        missing.endpoint = s3server_.endpoint().toStdString();
        missing.bucket = "no-such-bucket";
        missing.accessKeyId = "S3RVER";
        missing.secretAccessKey = "S3RVER";
        try {
            openS3Storage(missing);
            QFAIL("opened a missing bucket");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("no-such-bucket") != std::string::npos, e.what());
        }
        QVERIFY(isPostgresLocation("postgres://u@h:5432/db"));
        QVERIFY(isPostgresLocation("host=/tmp/x dbname=y"));
        QVERIFY(!isPostgresLocation("/srv/data/sqlite.db"));
        QVERIFY(isS3Location("s3://bucket/root"));
    }

    void pagesWalkEveryEntryOnceInKeyOrderOnBothCatalogs()
    {
        // 1,234 entries with ties on key (300 keys) and on key + version (3
        // versions), 3 locations without an entry; the same rows in
        // PostgreSQL and in SQLite, each written by its own SQL.
        auto admin = remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE paging");
        const std::string conninfo = pg_.conninfo("paging").toStdString();
        {
            auto c = remote::PgConnection::connect(conninfo);
            testsupport::createPgSchema(*c);
            c->exec(R"(INSERT INTO storage_locations SELECT 'loc-' || i, (1000000000 + i)::text, 1, NULL, NULL, NULL, NULL
                       FROM generate_series(1, 1237) i)");
            c->exec(R"(INSERT INTO cache_entries SELECT 'e-' || i, 'k' || (i % 300), 'v' || (i % 3), 1700000000000 + i % 97,
                       'loc-' || i, 'refs/heads/main', '1' FROM generate_series(1, 1234) i)");
        }
        const std::string sqlitePath = dir_.filePath("paging.db").toStdString();
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(sqlitePath.c_str(), &db), SQLITE_OK);
            std::string sql = testsupport::kPgSchema;
            sql += "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1237) INSERT INTO "
                   "storage_locations SELECT 'loc-' || i, CAST(1000000000 + i AS TEXT), 1, NULL, NULL, NULL, NULL FROM s;"
                   "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1234) INSERT INTO "
                   "cache_entries SELECT 'e-' || i, 'k' || (i % 300), 'v' || (i % 3), 1700000000000 + i % 97, 'loc-' || i, "
                   "'refs/heads/main', '1' FROM s;";
            QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        auto pgCatalog = openPostgresCatalog(conninfo, false);
        auto sqliteCatalog = openSqliteCatalog(sqlitePath, false);
        for (ActionsCatalog* c : {pgCatalog.get(), sqliteCatalog.get()}) {
            testsupport::checkKeyOrderWalk(*c);
            if (QTest::currentTestFailed())
                return;
            // Every order, with and without a key filter, against the same
            // rows sorted and filtered here.
            testsupport::checkEveryOrderAndFilter(*c);
            if (QTest::currentTestFailed())
                return;
        }
        // Through ActionsCache: next is set while a page is full.
        // Every location's folder exists (empty): a storage holding none of
        // the folders the catalog names is refused as the wrong one.
        auto emptyStorage = dir_.filePath("paging-storage");
        for (int i = 1; i <= 1237; ++i)
            QVERIFY(QDir().mkpath(emptyStorage + QLatin1Char('/') + QString::number(1000000000 + i)));
        ActionsCache cache(openSqliteCatalog(sqlitePath, false), openFilesystemStorage(emptyStorage.toStdString()));
        auto page = cache.entriesPage(std::nullopt, 1000);
        QCOMPARE(page.entries.size(), size_t(1000));
        QVERIFY(page.next);
        page = cache.entriesPage(page.next, 1000);
        QCOMPARE(page.entries.size(), size_t(234));
        QVERIFY(!page.next);
        // ls streams the catalog a page of 1,000 at a time: every entry once,
        // in key order, from PostgreSQL and from SQLite alike.
        const std::vector<std::string> expectedIds = testsupport::pagingExpected("", EntryOrder::KeyAscending);
        for (const QString& db : {pg_.url("paging"), QString::fromStdString(sqlitePath)}) {
            QProcess p;
            p.start(CACHESCOPE_CLI, {"actions-cache", "ls", "--db", db, "--storage", emptyStorage, "--json"});
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            QJsonParseError error;
            const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput(), &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
            std::vector<std::string> ids;
            for (const auto& v : o["entries"].toArray())
                ids.push_back(v.toObject()["id"].toString().toStdString());
            QCOMPARE(ids, expectedIds);
        }
    }

    // Size, parts and state orders and filters over every entry, through
    // the size index of this layout (PostgreSQL rows, S3 objects), against the fixture's rows and bytes.
    void indexOrdersAndFiltersServeEveryEntry()
    {
        QTemporaryDir cacheHome;
        const testsupport::SavedCacheHome saved;
        const Deployment d = deploy();
        testsupport::checkIndexOnLayout([&] { return openRemote(d, false); }, *fixture_, cacheHome);
    }

    // The size index's rescan walks the ids in the catalog's own order: an
    // ICU collation (lower case before upper, unlike bytes) changes
    // nothing in what the rescan finds (deleted rows, rows added with an
    // old stamp that only the id walk sees), and the walk reads pages of
    // the primary key, not the table once per page (a COLLATE "C" walk
    // scanned and sorted all of it for each of its pages).
    void rescanWalksIdsInTheCatalogsOwnOrder()
    {
        QTemporaryDir cacheHome;
        const testsupport::SavedCacheHome saved;
        qputenv("XDG_CACHE_HOME", cacheHome.path().toUtf8());
        auto admin = remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE icu TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'");
        const std::string conninfo = pg_.conninfo("icu").toStdString();
        constexpr int kRows = 30000;   // three id pages and a bit
        {
            auto c = remote::PgConnection::connect(conninfo);
            testsupport::createPgSchema(*c);
            c->exec(R"(INSERT INTO storage_locations SELECT 'loc-' || i, (2000000000 + i)::text, 1, NULL, NULL, NULL, NULL
                       FROM generate_series(1, 30000) i)");
            // Ids in two cases: bytes put every 'E' before every 'e', en-US interleaves them.
            c->exec(R"(INSERT INTO cache_entries SELECT CASE WHEN i % 2 = 0 THEN 'e-' ELSE 'E-' END || i, 'k' || i, 'v',
                       1700000000000 + i, 'loc-' || i, 'refs/heads/main', '1' FROM generate_series(1, 30000) i)");
            c->exec("ANALYZE cache_entries");
            const auto order = c->exec(R"(SELECT "id" FROM cache_entries WHERE "id" IN ('E-3', 'e-2') ORDER BY "id")");
            QCOMPARE(order.text(0, 0), std::string("e-2"));   // the collation really is not bytewise
        }
        const QString storage = dir_.filePath("icu-storage");
        for (int i = 1; i <= 100; ++i)
            QVERIFY(QDir().mkpath(storage + "/" + QString::number(2000000000 + i)));
        auto open = [&] {
            return std::make_unique<ActionsCache>(openPostgresCatalog(conninfo, false),
                                                  openFilesystemStorage(storage.toStdString()));
        };
        auto idsInIndex = [](ActionsCache& cache) {
            EntryQuery q;
            q.order = EntryOrder::SizeLargest;
            std::set<std::string> ids;
            std::optional<EntryCursor> after;
            do {
                auto page = cache.entriesPage(q, after, 5000);
                for (const auto& e : page.entries)
                    ids.insert(e.id);
                after = page.next;
            } while (after);
            return ids;
        };
        auto idsInSql = [&] {
            auto c = remote::PgConnection::connect(conninfo);
            const auto r = c->exec(R"(SELECT "id" FROM cache_entries)");
            std::set<std::string> ids;
            for (int i = 0; i < r.rows(); ++i)
                ids.insert(r.text(i, 0));
            return ids;
        };
        {
            auto cache = open();
            QVERIFY(cache->refreshIndex().full);
            QCOMPARE(idsInIndex(*cache), idsInSql());
        }
        {
            // The server deletes rows of both cases and, from a restored
            // backup, adds rows stamped long ago (the change query misses them).
            auto c = remote::PgConnection::connect(conninfo);
            c->exec(R"(DELETE FROM storage_locations WHERE "id" IN ('loc-7', 'loc-8', 'loc-20001', 'loc-29999'))");
            c->exec(R"(INSERT INTO storage_locations VALUES ('loc-new-1', '3000000001', 1, NULL, NULL, NULL, NULL),
                       ('loc-new-2', '3000000002', 1, NULL, NULL, NULL, NULL))");
            c->exec(R"(INSERT INTO cache_entries VALUES ('E-old-1', 'old', 'v', 1600000000000, 'loc-new-1', 'refs/heads/main', '1'),
                       ('e-old-2', 'old', 'v', 1600000000000, 'loc-new-2', 'refs/heads/main', '1'))");
        }
        auto seqRead = [&] {
            return admin->exec(R"(SELECT coalesce(sum(seq_tup_read), 0) FROM pg_stat_user_tables WHERE relname = 'cache_entries')"
                               R"( AND schemaname = 'public')")
                .i64(0, 0);
        };
        // pg_stat_user_tables is per database: read it from a session on icu.
        admin = remote::PgConnection::connect(conninfo);
        const auto want = idsInSql();
        QCOMPARE(want.size(), size_t(kRows - 4 + 2));
        const int64_t before = seqRead();
        {
            auto cache = open();
            const IndexRefreshStats st = cache->refreshIndex();
            QVERIFY(!st.full);
            QCOMPARE(st.idsRead, uint64_t(kRows - 4 + 2));
            QCOMPARE(idsInIndex(*cache), want);
        }
        // The rescan's own sessions have ended: their table statistics are
        // flushed as each backend exits. The change query and the lookup of
        // the unseen rows read the table (2 scans); a walk that sorted the
        // table for each of its 4 pages read it 4 times more.
        int64_t after = before;
        for (int i = 0; i < 50; ++i) {
            const int64_t now = seqRead();
            if (now == after && now > before && i > 2)
                break;
            after = now;
            QTest::qWait(200);
        }
        QVERIFY2(after > before, "no table statistics arrived from the rescan's sessions");
        qInfo("the rescan read %lld rows of cache_entries by sequential scans", (long long)(after - before));
        QVERIFY2(after - before < 3 * kRows, qPrintable(QString("the rescan read %1 rows of cache_entries by sequential scans")
                                                              .arg(after - before)));
    }

    void verifyListsFoldersWithEightInFlight()
    {
        // 240 entries of one part each, all present: no finding, and the
        // folders are listed up to 8 at a time.
        auto admin = remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE wide");
        const std::string conninfo = pg_.conninfo("wide").toStdString();
        {
            auto c = remote::PgConnection::connect(conninfo);
            testsupport::createPgSchema(*c);
            c->exec(R"(INSERT INTO storage_locations SELECT 'loc-' || i, (1000000000 + i)::text, 1, NULL, NULL, NULL, NULL
                       FROM generate_series(1, 240) i)");
            c->exec(R"(INSERT INTO cache_entries SELECT 'e-' || i, 'k' || i, 'v1', 1700000000000 + i, 'loc-' || i,
                       'refs/heads/main', '1' FROM generate_series(1, 240) i)");
        }
        remote::S3Config config;
        config.endpoint = s3server_.endpoint().toStdString();
        config.bucket = "cache";
        config.accessKeyId = config.secretAccessKey = testsupport::S3TestServer::accessKeyId().toStdString();
        remote::S3Client s3(config);
        for (int i = 1; i <= 240; ++i)
            s3.put("wide/gh-actions-cache/" + std::to_string(1000000000 + i) + "/parts/0", "part");
        config.prefix = "wide/gh-actions-cache";
        // Opening checks the bucket with one request, whatever it holds.
        const uint64_t sentBefore = remote::S3Client::processRequestsSent();
        auto storage = openS3Storage(config);
        QCOMPARE(remote::S3Client::processRequestsSent() - sentBefore, uint64_t(1));
        ActionsCache cache(openPostgresCatalog(conninfo, false), std::move(storage));
        remote::S3Client::resetProcessPeakInFlight();
        Job job;
        const auto findings = cache.verify(job);
        for (const auto& f : findings)
            qWarning("%s", f.message.c_str());
        QVERIFY(findings.empty());
        QVERIFY2(remote::S3Client::processPeakInFlight() >= 8,
                 qPrintable(QString("peak %1 requests in flight").arg(remote::S3Client::processPeakInFlight())));
        const auto entries = cache.entries();
        QCOMPARE(entries.size(), size_t(240));
        for (const auto& e : entries)
            QCOMPARE(e.size, uint64_t(4));
    }
};

QTEST_GUILESS_MAIN(TestActionsRemote)
#include "tst_actions_remote.moc"
