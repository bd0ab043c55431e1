// The actions-cache operations on the server's MySQL deployment
// (DB_DRIVER=mysql), against a real MariaDB started here (Debian's
// mariadb-server, TestServers.h). The fixture's rows (every state) are
// loaded into the server's MySQL schema by an independent writer
// (RemoteDeployment.h), the storage is the fixture's folder, and every read
// must agree with the same read of the SQLite data dir. Read commands
// change no row (mariadb-dump before and after); writes are compare-and-set
// (tst_actions_races runs its races on MySQL too).
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
#include "core/remote/MysqlConnection.h"
#include "core/util/Error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <map>
#include <set>

using namespace cs;
using namespace cs::actions;
using testsupport::ActionsCacheFixture;
using testsupport::MariaDbTestServer;

class TestActionsMysql : public QObject {
    Q_OBJECT

    MariaDbTestServer my_;
    int dbCounter_ = 0;

    // A fresh database holding a fresh fixture's rows, its storage the
    // fixture's own folder.
    struct Deployment {
        std::unique_ptr<QTemporaryDir> dir;
        std::unique_ptr<ActionsCacheFixture> fixture;
        QString db;
        std::string url;   // TCP, user cache
    };

    remote::MysqlTarget root(const QString& db) const
    {
        remote::MysqlTarget t;
        t.user = "root";
        t.socket = my_.socket().toStdString();
        t.database = db.toStdString();
        return t;
    }
    std::unique_ptr<remote::MysqlConnection> rootSession(const QString& db) const
    {
        return remote::MysqlConnection::connect(root(db), remote::MysqlConnection::ReadWriteSession);
    }
    QString createDatabase()
    {
        const QString name = "d" + QString::number(++dbCounter_);
        rootSession("mysql")->exec("CREATE DATABASE " + name.toStdString());
        return name;
    }

    Deployment deploy()
    {
        Deployment d;
        d.dir = std::make_unique<QTemporaryDir>();
        d.fixture = std::make_unique<ActionsCacheFixture>(d.dir->path());
        d.db = createDatabase();
        auto loader = rootSession(d.db);
        testsupport::loadRows(d.fixture->dbPath(), *loader);
        d.url = my_.url(d.db).toStdString();
        return d;
    }

    std::unique_ptr<ActionsCache> open(const Deployment& d, bool writable)
    {
        return std::make_unique<ActionsCache>(openMysqlCatalog(d.url, writable, MariaDbTestServer::password().toStdString()),
                                              openFilesystemStorage(d.fixture->storageDir().toStdString()));
    }

    // cachescope-cli actions-cache COMMAND on d by its URL, MYSQL_PWD set
    // unless withPassword is false.
    testsupport::ProcessResult cliOn(const Deployment& d, const QString& db, const QStringList& command,
                                     bool withPassword = true)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("MYSQL_PWD");
        if (withPassword)
            env.insert("MYSQL_PWD", MariaDbTestServer::password());
        p.setProcessEnvironment(env);
        p.start(CACHESCOPE_CLI, QStringList{"actions-cache"} + command
                                    + QStringList{"--db", db, "--storage", d.fixture->storageDir()});
        p.waitForFinished(600000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(my_.start(&why), qPrintable("cannot start the MariaDB test server: " + why));
    }

    void theSchemaIsTheServersMysqlSchema()
    {
        // What the loader wrote is what kysely's migrations write on MySQL.
        const Deployment d = deploy();
        const auto r = rootSession(d.db)->exec(
            "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
            "AND COLUMN_NAME IN ('id', 'key', 'version', 'scope', 'repoId', 'locationId') ORDER BY 1, 2");
        std::set<std::string> got;
        for (int i = 0; i < r.rows(); ++i)
            got.insert(r.text(i, 0) + "." + r.text(i, 1) + " " + r.text(i, 2));
        for (const char* want : {"storage_locations.id varchar(36)", "cache_entries.id varchar(36)",
                                 "cache_entries.key varchar(512)", "cache_entries.version varchar(255)",
                                 "cache_entries.scope varchar(255)", "cache_entries.repoId varchar(255)",
                                 "cache_entries.locationId varchar(36)", "uploads.id bigint(20)",
                                 "uploads.key varchar(512)"})
            QVERIFY2(got.count(want), want);
    }

    void listingAndVerifyAgreeWithTheDataDir()
    {
        const Deployment d = deploy();
        auto local = ActionsCache::open(resolveDataDir(d.fixture->dataDir().toStdString()));
        auto remote = open(d, false);
        const auto want = testsupport::entrySummary(local->entries());
        QCOMPARE(int(want.size()), 5);
        QCOMPARE(testsupport::entrySummary(remote->entries()), want);
        QCOMPARE(remote->uploads().size(), local->uploads().size());
        QCOMPARE(remote->catalog().locations().size(), local->catalog().locations().size());
        Job j1, j2;
        const auto localFindings = testsupport::findingKinds(local->verify(j1));
        QVERIFY(!localFindings.empty());
        QCOMPARE(testsupport::findingKinds(remote->verify(j2)), localFindings);
        // A page joins each entry to its location, as the full read does.
        for (const auto& row : remote->catalog().entriesPage(std::nullopt, 10)) {
            QVERIFY2(row.location, row.id.c_str());
            QCOMPARE(row.location->id, row.locationId);
        }
    }

    void readsChangeNoRow()
    {
        const Deployment d = deploy();
        const QByteArray before = my_.dump(d.db);
        QVERIFY2(before.contains("INSERT INTO `cache_entries`"), before.left(500).constData());
        {
            auto cache = open(d, false);
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
            cache->planReapUploads(0);
            cache->catalog().changeStamp();
            cache->catalog().entriesPage(EntryQuery{"npm", EntryOrder::UpdatedNewest}, std::nullopt, 3);
            cache->catalog().entryCount("NPM");
            // A read-only catalog refuses writes before touching anything.
            Job merge;
            QVERIFY_THROWS_EXCEPTION(Error, cache->merge({}, merge, WriteOptions{true, kPartsGraceMs, {}}));
            const LocationRow any = cache->catalog().locations().front();
            QVERIFY_THROWS_EXCEPTION(Error, (void)cache->catalog().setMerged(any, 1));
            QVERIFY_THROWS_EXCEPTION(Error, (void)cache->catalog().deleteLocation(any.id, any));
        }
        // ... and so do the CLI's read commands and write plans.
        for (const QStringList& command : {QStringList{"ls", "--json"}, QStringList{"verify"}, QStringList{"merge"},
                                           QStringList{"evict", "--unused-for", "1d"}}) {
            const auto r = cliOn(d, QString::fromStdString(d.url), command);
            QVERIFY2(r.exitCode == 0 || command.first() == "verify", r.err.constData());
        }
        // A READ ONLY session refuses a write the SQL itself asks for.
        remote::MysqlTarget t = remote::parseMysqlUrl(d.url);
        auto ro = remote::MysqlConnection::connect(t, remote::MysqlConnection::ReadOnlySession,
                                                   MariaDbTestServer::password().toStdString());
        try {
            ro->exec("DELETE FROM uploads");
            QFAIL("a read-only session deleted rows");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("READ ONLY") != std::string::npos, e.what());
        }
        QCOMPARE(my_.dump(d.db), before);
    }

    void changeStampFollowsOtherWriters()
    {
        const Deployment d = deploy();
        auto catalog = openMysqlCatalog(d.url, false, MariaDbTestServer::password().toStdString());
        const std::string quiet = catalog->changeStamp();
        QCOMPARE(catalog->changeStamp(), quiet);
        // A write that leaves every count and newest time alone: only the
        // table's UPDATE_TIME (to the second) tells.
        QThread::sleep(1);
        rootSession(d.db)->exec("UPDATE cache_entries SET version = 'other' WHERE id = ?",
                                {remote::MysqlValue::of(d.fixture->entry("1003").id.toStdString())});
        const std::string changed = catalog->changeStamp();
        QVERIFY2(changed != quiet, changed.c_str());
        // A download: the newest location time moves.
        rootSession(d.db)->exec("UPDATE storage_locations SET lastDownloadedAt = 9999999999999 WHERE folderName = '1005'");
        QVERIFY(catalog->changeStamp() != changed);
    }

    void mergeAndEvictWriteTheServersEndState()
    {
        const Deployment d = deploy();
        auto cache = open(d, true);
        const auto& e1003 = d.fixture->entry("1003");
        Job job;
        const auto results = cache->merge({e1003.id.toStdString()}, job, WriteOptions{true, 0, {}});
        QCOMPARE(int(results.size()), 1);
        QVERIFY2(results[0].merged, results[0].action.c_str());
        QCOMPARE(testsupport::readFile(d.fixture->storageDir() + "/1003/merged"), e1003.blob);
        for (const auto& e : cache->entries())
            if (e.id == e1003.id.toStdString()) {
                QCOMPARE(std::string(entryStateName(e.state)), std::string("parts deleted"));
                QCOMPARE(e.size, uint64_t(e1003.blob.size()));
            }
        auto sql = rootSession(d.db);
        const auto row = sql->exec("SELECT mergeStartedAt IS NOT NULL, mergedAt IS NOT NULL, partsDeletedAt IS NOT NULL "
                                   "FROM storage_locations WHERE folderName = '1003'");
        QCOMPARE(row.text(0, 0) + row.text(0, 1) + row.text(0, 2), std::string("111"));

        // Evict by key: the location row and its entry go, then the folder.
        const auto& e1005 = d.fixture->entry("1005");
        ActionsEvictPolicy policy;
        policy.keys = {e1005.key.toStdString()};
        Job evict;
        const auto gone = cache->evict(policy, evict, WriteOptions{true, 0, {}});
        QCOMPARE(int(gone.size()), 1);
        QCOMPARE(sql->exec("SELECT count(*) FROM cache_entries WHERE id = ?", {remote::MysqlValue::of(e1005.id.toStdString())})
                     .i64(0, 0),
                 int64_t(0));
        QCOMPARE(sql->exec("SELECT count(*) FROM storage_locations WHERE folderName = '1005'").i64(0, 0), int64_t(0));
        QVERIFY(!QFileInfo::exists(d.fixture->storageDir() + "/1005"));
        QCOMPARE(cache->entries().size(), size_t(4));
    }

    void cliOpensTheDatabaseByUrlWithThePasswordFromTheEnvironment()
    {
        const Deployment d = deploy();
        for (const QString& db : {QString::fromStdString(d.url), my_.socketUrl(d.db)}) {
            const auto r = cliOn(d, db, {"ls", "--json"});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject o = QJsonDocument::fromJson(r.out).object();
            QCOMPARE(o["entries"].toArray().size(), 5);
            for (const auto& v : o["entries"].toArray())
                if (v.toObject()["folder"].toString() == "1003")
                    QCOMPARE(v.toObject()["state"].toString(), QString("unmerged"));
            QVERIFY(!r.out.contains(MariaDbTestServer::password().toUtf8()));
        }
        // No MYSQL_PWD: refused by the server, in one line naming the database.
        auto r = cliOn(d, QString::fromStdString(d.url), {"ls"}, false);
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(("mysql://cache@127.0.0.1:" + QString::number(my_.port()) + "/" + d.db).toUtf8()),
                 r.err.constData());
        QVERIFY2(r.err.contains("Access denied"), r.err.constData());
        // A password in the URL is refused and never shown.
        const QString withPassword = QString("mysql://cache:%1@127.0.0.1:%2/%3")
                                         .arg(MariaDbTestServer::password())
                                         .arg(my_.port())
                                         .arg(d.db);
        r = cliOn(d, withPassword, {"ls"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("MYSQL_PWD"), r.err.constData());
        QVERIFY2(!r.err.contains(MariaDbTestServer::password().toUtf8()), r.err.constData());
    }

    void badLocationsGiveOneSentence()
    {
        try {
            openMysqlCatalog(my_.url("no_such_database").toStdString(), false, MariaDbTestServer::password().toStdString());
            QFAIL("opened a missing database");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("no_such_database") != std::string::npos, e.what());
            QVERIFY2(what.find(MariaDbTestServer::password().toStdString()) == std::string::npos, e.what());
            QVERIFY2(what.find('\n') == std::string::npos, e.what());
        }
        const QString empty = createDatabase();
        try {
            openMysqlCatalog(my_.url(empty).toStdString(), false, MariaDbTestServer::password().toStdString());
            QFAIL("opened a database without the server's tables");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("storage_locations") != std::string::npos, e.what());
        }
        // The URL forms.
        auto t = remote::parseMysqlUrl("mysql://cache@db.internal:3307/ci");
        QCOMPARE(t.user + "|" + t.host + "|" + std::to_string(t.port) + "|" + t.database, std::string("cache|db.internal|3307|ci"));
        t = remote::parseMysqlUrl("mariadb://cache@db/ci");
        QCOMPARE(t.port, 3306u);
        t = remote::parseMysqlUrl("mysql://cache@localhost/ci?socket=%2Frun%2Fmysqld%2Fmysqld.sock");
        QCOMPARE(t.socket, std::string("/run/mysqld/mysqld.sock"));
        QCOMPARE(t.describe(), std::string("mysql://cache@localhost/ci?socket=/run/mysqld/mysqld.sock"));
        for (const char* bad : {"mysql://db/ci", "mysql://cache@db", "mysql://cache@db:99999/ci", "mysql://cache@db/ci?ssl=1",
                                "postgres://cache@db/ci"})
            QVERIFY_THROWS_EXCEPTION(Error, remote::parseMysqlUrl(bad));
        try {
            remote::parseMysqlUrl("mysql://cache:s3cret@db/ci");
            QFAIL("took a URL with a password");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("s3cret") == std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("mysql://cache:***@db/ci") == 0, e.what());
        }
        QVERIFY(isMysqlLocation("mysql://u@h:3306/db"));
        QVERIFY(isMysqlLocation("mariadb://u@h/db"));
        QVERIFY(!isMysqlLocation("postgres://u@h/db"));
        QVERIFY(!isPostgresLocation("mysql://u@h:3306/db"));
    }

    void pagesWalkEveryOrderAndFilterInTheColumnsCollation()
    {
        // The paging rows (CatalogPaging.h), written with MariaDB's SQL
        // (its seq_1_to_N sequence tables).
        const QString db = createDatabase();
        {
            auto c = rootSession(db);
            testsupport::createMysqlSchema(*c);
            c->exec("INSERT INTO storage_locations SELECT concat('loc-', seq), 1000000000 + seq, 1, NULL, NULL, NULL, NULL "
                    "FROM seq_1_to_1237");
            c->exec("INSERT INTO cache_entries (id, `key`, version, updatedAt, locationId, scope, repoId) SELECT "
                    "concat('e-', seq), concat('k', seq % 300), concat('v', seq % 3), 1700000000000 + seq % 97, "
                    "concat('loc-', seq), 'refs/heads/main', '1' FROM seq_1_to_1234");
        }
        auto catalog = openMysqlCatalog(my_.url(db).toStdString(), false, MariaDbTestServer::password().toStdString());
        testsupport::checkKeyOrderWalk(*catalog);
        if (QTest::currentTestFailed())
            return;
        testsupport::checkEveryOrderAndFilter(*catalog);
        if (QTest::currentTestFailed())
            return;
        // The key filter folds A-Z only, whatever the collation folds
        // (utf8mb4_general_ci: Ü = ü = u).
        auto c = rootSession(db);
        c->exec("INSERT INTO storage_locations VALUES ('loc-u1', 'u1', 1, NULL, NULL, NULL, NULL), "
                "('loc-u2', 'u2', 1, NULL, NULL, NULL, NULL), ('loc-u3', 'u3', 1, NULL, NULL, NULL, NULL)");
        c->exec("INSERT INTO cache_entries (id, `key`, version, updatedAt, locationId, scope, repoId) VALUES "
                "('u1', 'Linux-\xc3\x9c', 'v', 1, 'loc-u1', 's', '1'), ('u2', 'linux-\xc3\xbc', 'v', 1, 'loc-u2', 's', '1'), "
                "('u3', 'linux-u', 'v', 1, 'loc-u3', 's', '1')");
        QCOMPARE(catalog->entryCount("LINUX-"), uint64_t(3));
        QCOMPARE(catalog->entryCount("\xc3\xbc"), uint64_t(1));
        QCOMPARE(catalog->entryCount("-u"), uint64_t(1));
        const auto page = catalog->entriesPage(EntryQuery{"\xc3\x9c", EntryOrder::KeyAscending}, std::nullopt, 10);
        QCOMPARE(int(page.size()), 1);
        QCOMPARE(page[0].id, std::string("u1"));
        QCOMPARE(page[0].key, std::string("Linux-\xc3\x9c"));   // read back as UTF-8
        // 250 entries of one key and version (one key saved from 250
        // branches): pages of 100 cut the tie, which only the id orders.
        c->exec("INSERT INTO storage_locations SELECT concat('loc-t', seq), concat('t', seq), 1, NULL, NULL, NULL, NULL "
                "FROM seq_1000_to_1249");
        c->exec("INSERT INTO cache_entries (id, `key`, version, updatedAt, locationId, scope, repoId) SELECT "
                "concat('t', seq), 'ktie', 'v', 5, concat('loc-t', seq), concat('refs/heads/b', seq), '1' "
                "FROM seq_1000_to_1249");
        for (const EntryOrder order : {EntryOrder::KeyAscending, EntryOrder::KeyDescending}) {
            std::vector<std::string> want, got;
            for (int i = 1000; i < 1250; ++i)
                want.push_back("t" + std::to_string(i));
            if (order == EntryOrder::KeyDescending)
                std::reverse(want.begin(), want.end());
            std::optional<EntryCursor> after;
            for (int pages = 0; pages < 10; ++pages) {
                const auto rows = catalog->entriesPage(EntryQuery{"ktie", order}, after, 100);
                for (const auto& r : rows)
                    got.push_back(r.id);
                if (rows.size() < 100)
                    break;
                after = EntryCursor{rows.back().key, rows.back().version, rows.back().id, rows.back().updatedAtMs};
            }
            QCOMPARE(got, want);
        }
    }

    void theKeyFilterIgnoresTheCollationsFolding_data()
    {
        QTest::addColumn<QString>("collation");
        QTest::newRow("general_ci") << "utf8mb4_general_ci";   // LIKE first
        QTest::newRow("bin") << "utf8mb4_bin";                 // case counts: no LIKE
        QTest::newRow("turkish_ci") << "utf8mb4_turkish_ci";   // I is not i: no LIKE
        QTest::newRow("latin1") << "latin1_swedish_ci";        // MariaDB's compiled-in default
    }
    void theKeyFilterIgnoresTheCollationsFolding()
    {
        QFETCH(QString, collation);
        const QString db = "c" + QString::number(++dbCounter_);
        rootSession("mysql")->exec("CREATE DATABASE " + db.toStdString() + " CHARACTER SET "
                                   + collation.left(collation.indexOf('_')).toStdString() + " COLLATE " + collation.toStdString());
        auto c = rootSession(db);
        testsupport::createMysqlSchema(*c);
        c->exec("INSERT INTO storage_locations SELECT concat('l', seq), seq, 1, NULL, NULL, NULL, NULL FROM seq_1_to_5");
        // Row 3: a dotless i (Turkish), or an e-acute where latin1 cannot hold that.
        const bool latin1 = collation.startsWith("latin1");
        const std::string third = latin1 ? "K\xc3\xa9w\xc3\xa9-3" : "K\xc4\xb1w\xc4\xb1-3";
        c->exec("INSERT INTO cache_entries (id, `key`, version, updatedAt, locationId, scope, repoId) VALUES "
                "('1', 'KIWI-1', 'v', 1, 'l1', 's', '1'), ('2', 'kiwi-2', 'v', 1, 'l2', 's', '1'), "
                "('3', ?, 'v', 1, 'l3', 's', '1'), ('4', 'k_w%-4', 'v', 1, 'l4', 's', '1'), "
                "('5', 'ab!c-5', 'v', 1, 'l5', 's', '1')",
                {remote::MysqlValue::of(third)});
        auto catalog = openMysqlCatalog(my_.url(db).toStdString(), false, MariaDbTestServer::password().toStdString());
        QCOMPARE(catalog->entryCount("kiwi"), uint64_t(2));
        QCOMPARE(catalog->entryCount("KIWI-"), uint64_t(2));
        QCOMPARE(catalog->entryCount("_w%"), uint64_t(1));     // LIKE's wildcards are bytes here
        QCOMPARE(catalog->entryCount("B!C"), uint64_t(1));
        QCOMPARE(catalog->entryCount(latin1 ? "w\xc3\xa9" : "w\xc4\xb1"), uint64_t(1));   // its own bytes
        QCOMPARE(catalog->entryCount(latin1 ? "W\xc3\x89" : "wi-3"), uint64_t(0));       // not É, not i
        std::set<std::string> ids;
        for (const auto& r : catalog->entriesPage(EntryQuery{"KiWi", EntryOrder::KeyAscending}, std::nullopt, 10))
            ids.insert(r.id);
        QCOMPARE(ids, (std::set<std::string>{"1", "2"}));
    }

    // Size, parts and state orders and filters over every entry, through
    // the size index of this layout (MySQL rows, files), against the fixture's rows and bytes.
    void indexOrdersAndFiltersServeEveryEntry()
    {
        QTemporaryDir cacheHome;
        const testsupport::SavedCacheHome saved;
        const Deployment d = deploy();
        auto cache = testsupport::checkIndexOnLayout([&] { return open(d, false); }, *d.fixture, cacheHome);
        if (!cache)
            return;
        // A rescan walks the ids in the primary key's order (the table's
        // collation): a deleted row leaves the index, the others stay.
        const testsupport::FixtureEntry& gone = d.fixture->entries().front();
        rootSession(d.db)->exec("DELETE FROM cache_entries WHERE id = '" + gone.id.toStdString() + "'");
        const IndexRefreshStats st = cache->refreshIndex();
        QVERIFY(!st.full);
        QCOMPARE(st.idsRead, uint64_t(d.fixture->entries().size() - 1));
        EntryQuery all;
        all.order = EntryOrder::SizeLargest;
        const auto left = testsupport::walkQuery(*cache, all);
        QCOMPARE(left.size(), size_t(d.fixture->entries().size() - 1));
        for (const auto& e : left)
            QVERIFY(e.id != gone.id.toStdString());
    }

    void otherSessionsAreTheServer()
    {
        const Deployment d = deploy();
        // Rows aged past the activity window: only sessions can signal.
        auto sql = rootSession(d.db);
        sql->exec("UPDATE cache_entries SET updatedAt = 1");
        sql->exec("UPDATE storage_locations SET mergeStartedAt = IF(mergeStartedAt IS NULL, NULL, 1), "
                  "mergedAt = IF(mergedAt IS NULL, NULL, 1), lastDownloadedAt = IF(lastDownloadedAt IS NULL, NULL, 1)");
        sql->exec("UPDATE uploads SET createdAt = 1, lastPartUploadedAt = IF(lastPartUploadedAt IS NULL, NULL, 1)");
        sql.reset();
        auto cache = open(d, true);
        Activity a = cache->activity();
        QVERIFY2(!a.active, a.reason.c_str());   // our own sessions are not the server
        // Another cachescope session (it names itself) is not the server either.
        auto ours = remote::MysqlConnection::connect(remote::parseMysqlUrl(d.url), remote::MysqlConnection::ReadOnlySession,
                                                     MariaDbTestServer::password().toStdString());
        a = cache->activity();
        QVERIFY2(!a.active, a.reason.c_str());
        // A server's pool: an idle session of another client on the database.
        QProcess server;
        server.start("/usr/bin/mariadb", {"--no-defaults", "-S", my_.socket(), "-u", "root", d.db});
        QVERIFY(server.waitForStarted(30000));
        server.write("SELECT 1;\n");
        for (int i = 0; i < 100 && !cache->activity().active; ++i)
            QThread::msleep(100);
        a = cache->activity();
        QCOMPARE(a.signal, ActivitySignal::DatabaseSessions);
        QVERIFY2(a.reason.find("session ") == 0, a.reason.c_str());
        QVERIFY2(a.reason.find("(user 'root')") != std::string::npos, a.reason.c_str());
        Job job("merge");
        QVERIFY_THROWS_EXCEPTION(ServerActive, cache->merge({}, job));
        server.closeWriteChannel();
        QVERIFY(server.waitForFinished(30000));
        for (int i = 0; i < 50 && cache->activity().active; ++i)
            QThread::msleep(100);
        QVERIFY(!cache->activity().active);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsMysql)
#include "tst_actions_mysql.moc"
