// Writes beside a running server are compare-and-set (issue 21): a row the
// server (or another cachescope run) changed between our plan and our write
// is left as they left it, and the entry is reported as skipped, never as a
// failure. Checked on the three catalogs the server writes, SQLite (the
// fixture data dir), PostgreSQL and MySQL (real servers started here,
// PostgreSQL 15 and MariaDB, the fixture's rows loaded by an independent
// writer), the "server" being plain SQL run at the
// exact moment between plan and write. Two cachescope merges of one entry
// at once take turns (before: 26 of 30 failed, "cannot move the merged file
// into place").
#include "common/ActionsCacheFixture.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/MysqlConnection.h"
#include "core/remote/PgConnection.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include <functional>

using namespace cs;
using namespace cs::actions;
using testsupport::ActionsCacheFixture;

namespace {

// A catalog that runs `beforeWrite` (the server's write) right before the
// first write of a given name, then forwards everything to the real one.
class RacingCatalog final : public ActionsCatalog {
public:
    RacingCatalog(std::unique_ptr<ActionsCatalog> inner, std::string method, std::function<void()> server)
        : inner_(std::move(inner)), method_(std::move(method)), server_(std::move(server))
    {
    }
    std::string describe() const override { return inner_->describe(); }
    bool readOnly() const override { return inner_->readOnly(); }
    std::vector<EntryRow> entries() override { return inner_->entries(); }
    std::vector<LocationRow> locations() override { return inner_->locations(); }
    std::vector<UploadRow> uploads() override { return inner_->uploads(); }
    std::vector<EntryRow> entriesPage(const EntryQuery& q, const std::optional<EntryCursor>& after, size_t limit) override
    {
        return inner_->entriesPage(q, after, limit);
    }
    uint64_t entryCount(const std::string& k) override { return inner_->entryCount(k); }
    std::vector<LocationRow> locationsWithoutEntry() override { return inner_->locationsWithoutEntry(); }
    std::vector<std::string> otherUsers() override { return inner_->otherUsers(); }
    std::string changeStamp() override { return inner_->changeStamp(); }
    bool setMergeStarted(const LocationRow& seen, std::optional<int64_t> ms) override
    {
        race("setMergeStarted");
        return inner_->setMergeStarted(seen, ms);
    }
    bool setMerged(const LocationRow& seen, int64_t ms) override
    {
        race("setMerged");
        return inner_->setMerged(seen, ms);
    }
    bool setPartsDeleted(const LocationRow& seen, int64_t ms) override
    {
        race("setPartsDeleted");
        return inner_->setPartsDeleted(seen, ms);
    }
    bool deleteLocation(const std::string& id, const std::optional<LocationRow>& seen) override
    {
        race("deleteLocation");
        return inner_->deleteLocation(id, seen);
    }
    bool deleteUpload(const UploadRow& seen) override
    {
        race("deleteUpload");
        return inner_->deleteUpload(seen);
    }
    int raced = 0;

private:
    void race(const char* method)
    {
        if (method_ == method && raced++ == 0)
            server_();
    }
    std::unique_ptr<ActionsCatalog> inner_;
    std::string method_;
    std::function<void()> server_;
};

LocationRow locationIn(ActionsCatalog& c, const QString& folder)
{
    for (auto& l : c.locations())
        if (l.folderName == folder.toStdString())
            return l;
    qFatal("no location for folder %s", qPrintable(folder));
}

UploadRow uploadIn(ActionsCatalog& c, int64_t id)
{
    for (auto& u : c.uploads())
        if (u.id == id)
            return u;
    qFatal("no upload %lld", (long long)id);
}

} // namespace

class TestActionsRaces : public QObject {
    Q_OBJECT

    testsupport::PgTestServer pg_;
    testsupport::MariaDbTestServer my_;
    int dbCounter_ = 0;

    // One catalog under test and the "server" writing the same database
    // by its own SQL (SQLite's C API, or a libpq session of its own).
    struct Setup {
        std::unique_ptr<QTemporaryDir> dir;
        std::unique_ptr<ActionsCacheFixture> fixture;
        std::string conninfo;   // PostgreSQL only
        std::string mysqlUrl;   // MySQL only
        std::function<void(const std::string&)> serverSql;
        std::function<std::string(const std::string&)> serverValue;   // one value of a query
        std::unique_ptr<ActionsCatalog> open(bool writable) const
        {
            if (!mysqlUrl.empty())
                return openMysqlCatalog(mysqlUrl, writable, testsupport::MariaDbTestServer::password().toStdString());
            return conninfo.empty() ? openSqliteCatalog(fixture->dbPath().toStdString(), writable)
                                    : openPostgresCatalog(conninfo, writable);
        }
    };

    Setup setup(const QString& backend)
    {
        Setup s;
        s.dir = std::make_unique<QTemporaryDir>();
        s.fixture = std::make_unique<ActionsCacheFixture>(s.dir->path());
        if (backend == "sqlite") {
            ActionsCacheFixture* f = s.fixture.get();
            s.serverSql = [f](const std::string& sql) { f->exec(QString::fromStdString(sql)); };
            const std::string db = f->dbPath().toStdString();
            s.serverValue = [db](const std::string& sql) {
                sqlite3* h = nullptr;
                sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
                sqlite3_stmt* st = nullptr;
                std::string out = "?";
                if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
                    out = sqlite3_column_type(st, 0) == SQLITE_NULL
                              ? "NULL"
                              : reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
                sqlite3_finalize(st);
                sqlite3_close(h);
                return out;
            };
            return s;
        }
        if (backend == "mysql") {
            // The "server" is a root session of its own; the columns need no quotes there.
            const std::string name = "m" + std::to_string(++dbCounter_);
            remote::MysqlTarget root;
            root.user = "root";
            root.socket = my_.socket().toStdString();
            root.database = "mysql";
            remote::MysqlConnection::connect(root, remote::MysqlConnection::ReadWriteSession)->exec("CREATE DATABASE " + name);
            root.database = name;
            testsupport::loadRows(s.fixture->dbPath(), *remote::MysqlConnection::connect(root, remote::MysqlConnection::ReadWriteSession));
            s.mysqlUrl = my_.url(QString::fromStdString(name)).toStdString();
            s.serverSql = [root](const std::string& sql) {
                remote::MysqlConnection::connect(root, remote::MysqlConnection::ReadWriteSession)->exec(sql);
            };
            s.serverValue = [root](const std::string& sql) {
                const auto r = remote::MysqlConnection::connect(root, remote::MysqlConnection::ReadWriteSession)->exec(sql);
                return r.rows() == 0 ? std::string("?") : r.isNull(0, 0) ? std::string("NULL") : r.text(0, 0);
            };
            return s;
        }
        const std::string name = "r" + std::to_string(++dbCounter_);
        remote::PgConnection::connect(pg_.conninfo().toStdString())->exec("CREATE DATABASE " + name);
        s.conninfo = pg_.conninfo(QString::fromStdString(name)).toStdString();
        auto loader = remote::PgConnection::connect(s.conninfo);
        testsupport::loadRows(s.fixture->dbPath(), *loader);
        const std::string conninfo = s.conninfo;
        // kysely quotes camelCase columns; the tests write them bare, as in SQLite.
        const auto quoted = [](std::string sql) {
            for (const char* c : {"mergeStartedAt", "mergedAt", "partsDeletedAt", "lastDownloadedAt", "folderName",
                                  "lastPartUploadedAt", "finishedPartUploadCount", "locationId", "partCount"}) {
                const std::string bare = c;
                for (size_t at = sql.find(bare); at != std::string::npos; at = sql.find(bare, at + bare.size() + 2))
                    if (at == 0 || sql[at - 1] != '"')
                        sql.replace(at, bare.size(), "\"" + bare + "\"");
            }
            return sql;
        };
        s.serverSql = [conninfo, quoted](const std::string& sql) {
            remote::PgConnection::connect(conninfo)->exec(quoted(sql));
        };
        s.serverValue = [conninfo, quoted](const std::string& sql) {
            const auto r = remote::PgConnection::connect(conninfo)->exec(quoted(sql));
            return r.rows() == 0 ? std::string("?") : r.isNull(0, 0) ? std::string("NULL") : r.text(0, 0);
        };
        return s;
    }

    static void backends()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("sqlite") << "sqlite";
        QTest::newRow("postgres") << "postgres";
        QTest::newRow("mysql") << "mysql";
    }

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
        QVERIFY2(my_.start(&why), qPrintable("cannot start the MariaDB test server: " + why));
    }

    // Each write method against a row changed since it was read: false, and
    // the server's value stays; against the fresh row: true.
    void everyCatalogWriteIsCompareAndSet_data() { backends(); }
    void everyCatalogWriteIsCompareAndSet()
    {
        QFETCH(QString, backend);
        Setup s = setup(backend);
        auto c = s.open(true);
        const std::string where = " FROM storage_locations WHERE folderName = '1003'";

        LocationRow seen = locationIn(*c, "1003");
        QVERIFY(!seen.mergeStartedAtMs && !seen.mergedAtMs);
        s.serverSql("UPDATE storage_locations SET mergeStartedAt = 111 WHERE folderName = '1003'");
        QVERIFY(!c->setMergeStarted(seen, 222));
        QCOMPARE(s.serverValue("SELECT mergeStartedAt" + where), std::string("111"));
        seen = locationIn(*c, "1003");
        QVERIFY(c->setMergeStarted(seen, 222));
        QCOMPARE(s.serverValue("SELECT mergeStartedAt" + where), std::string("222"));

        // The server resets the merge (its 15-minute cleanup) before our mergedAt.
        seen = locationIn(*c, "1003");
        s.serverSql("UPDATE storage_locations SET mergeStartedAt = NULL WHERE folderName = '1003'");
        QVERIFY(!c->setMerged(seen, 333));
        QCOMPARE(s.serverValue("SELECT mergedAt" + where), std::string("NULL"));
        seen = locationIn(*c, "1003");
        QVERIFY(c->setMerged(seen, 333));

        // The server's cleanup:parts marks the parts deleted first.
        seen = locationIn(*c, "1003");
        s.serverSql("UPDATE storage_locations SET partsDeletedAt = 444 WHERE folderName = '1003'");
        QVERIFY(!c->setPartsDeleted(seen, 555));
        QCOMPARE(s.serverValue("SELECT partsDeletedAt" + where), std::string("444"));

        // A download since the plan keeps the entry: rows unchanged.
        const std::string id = s.fixture->entry("1001").id.toStdString();
        LocationRow l1001 = locationIn(*c, "1001");
        s.serverSql("UPDATE storage_locations SET lastDownloadedAt = 999 WHERE folderName = '1001'");
        QVERIFY(!c->deleteLocation(l1001.id, l1001));
        QCOMPARE(s.serverValue("SELECT count(*) FROM cache_entries WHERE id = '" + id + "'"), std::string("1"));
        l1001 = locationIn(*c, "1001");
        QVERIFY(c->deleteLocation(l1001.id, l1001));
        QCOMPARE(s.serverValue("SELECT count(*) FROM cache_entries WHERE id = '" + id + "'"), std::string("0"));
        QCOMPARE(s.serverValue("SELECT count(*)" + std::string(" FROM storage_locations WHERE folderName = '1001'")),
                 std::string("0"));

        // An entry naming a missing location: its rows go only while there is none.
        s.serverSql("INSERT INTO storage_locations (id, folderName, partCount) VALUES ('ghost', 'g', 1)");
        QVERIFY(!c->deleteLocation("ghost", std::nullopt));
        QCOMPARE(s.serverValue("SELECT count(*) FROM storage_locations WHERE id = 'ghost'"), std::string("1"));

        // An upload that got a part since the plan stays.
        const int64_t upload = ActionsCacheFixture::unfinishedUploadId();
        UploadRow u = uploadIn(*c, upload);
        s.serverSql("UPDATE uploads SET finishedPartUploadCount = finishedPartUploadCount + 1, "
                    "lastPartUploadedAt = 777 WHERE id = " + std::to_string(upload));
        QVERIFY(!c->deleteUpload(u));
        QCOMPARE(s.serverValue("SELECT count(*) FROM uploads WHERE id = " + std::to_string(upload)), std::string("1"));
        u = uploadIn(*c, upload);
        QVERIFY(c->deleteUpload(u));
        QCOMPARE(s.serverValue("SELECT count(*) FROM uploads WHERE id = " + std::to_string(upload)), std::string("0"));
    }

    // The server starts its own merge (a first download) between our plan
    // and our mergeStartedAt: skipped, no merged file, parts untouched.
    void lostMergeStartIsASkip_data() { backends(); }
    void lostMergeStartIsASkip()
    {
        QFETCH(QString, backend);
        Setup s = setup(backend);
        auto* server = &s;
        auto racing = std::make_unique<RacingCatalog>(s.open(true), "setMergeStarted", [server] {
            server->serverSql("UPDATE storage_locations SET mergeStartedAt = 5 WHERE folderName = '1003'");
        });
        RacingCatalog* rc = racing.get();
        ActionsCache cache(std::move(racing), openFilesystemStorage(s.fixture->storageDir().toStdString()));
        Job job("merge");
        const auto results = cache.merge({s.fixture->entry("1003").id.toStdString()}, job, {true, 0});
        QCOMPARE(rc->raced, 1);
        QCOMPARE(int(results.size()), 1);
        QVERIFY2(results[0].skipped && !results[0].error && !results[0].merged, results[0].action.c_str());
        QVERIFY2(results[0].action.find("the server got there first") != std::string::npos, results[0].action.c_str());
        QCOMPARE(s.serverValue("SELECT mergeStartedAt FROM storage_locations WHERE folderName = '1003'"),
                 std::string("5"));
        QVERIFY(!QFileInfo::exists(s.fixture->storageDir() + "/1003/merged"));
        QCOMPARE(QDir(s.fixture->storageDir() + "/1003").entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList{"parts"});
        QCOMPARE(QDir(s.fixture->storageDir() + "/1003/parts").entryList(QDir::Files).size(), 12);
    }

    // The server's cleanup marks the parts deleted between our mergedAt and
    // our partsDeletedAt: skipped, nothing of ours deleted.
    void lostPartsDeletedIsASkip_data() { backends(); }
    void lostPartsDeletedIsASkip()
    {
        QFETCH(QString, backend);
        Setup s = setup(backend);
        auto* server = &s;
        auto racing = std::make_unique<RacingCatalog>(s.open(true), "setPartsDeleted", [server] {
            server->serverSql("UPDATE storage_locations SET partsDeletedAt = 6 WHERE folderName = '1002'");
        });
        ActionsCache cache(std::move(racing), openFilesystemStorage(s.fixture->storageDir().toStdString()));
        Job job("merge");
        const auto results = cache.merge({s.fixture->entry("1002").id.toStdString()}, job, {true, 0});
        QCOMPARE(int(results.size()), 1);
        QVERIFY2(results[0].skipped && !results[0].error, results[0].action.c_str());
        QCOMPARE(s.serverValue("SELECT partsDeletedAt FROM storage_locations WHERE folderName = '1002'"),
                 std::string("6"));
        QVERIFY(QDir(s.fixture->storageDir() + "/1002/parts").entryList(QDir::Files).size() > 0);
    }

    // A download between evict's plan and its delete keeps the entry.
    void lostEvictIsASkip_data() { backends(); }
    void lostEvictIsASkip()
    {
        QFETCH(QString, backend);
        Setup s = setup(backend);
        auto* server = &s;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        auto racing = std::make_unique<RacingCatalog>(s.open(true), "deleteLocation", [server, now] {
            server->serverSql("UPDATE storage_locations SET lastDownloadedAt = " + std::to_string(now)
                              + " WHERE folderName = '1005'");
        });
        ActionsCache cache(std::move(racing), openFilesystemStorage(s.fixture->storageDir().toStdString()));
        Job job("evict");
        ActionsEvictPolicy policy;
        policy.keys = {s.fixture->entry("1005").key.toStdString()};
        std::vector<ActionsSkip> skipped;
        const auto gone = cache.evict(policy, job, {true, 0}, &skipped);
        QCOMPARE(int(gone.size()), 0);
        QCOMPARE(int(skipped.size()), 1);
        QVERIFY2(skipped[0].reason.find("the server got there first") != std::string::npos, skipped[0].reason.c_str());
        QCOMPARE(s.serverValue("SELECT count(*) FROM cache_entries WHERE id = '"
                               + s.fixture->entry("1005").id.toStdString() + "'"),
                 std::string("1"));
        QVERIFY(QFileInfo::exists(s.fixture->storageDir() + "/1005/parts/0"));
    }

    // The parts outlive the merge by the grace (a download that read the
    // row before mergedAt still streams them); a merge run after it, or the
    // server's cleanup, deletes them.
    void mergeKeepsPartsForTheGrace()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()), true);
        const std::string id = f.entry("1003").id.toStdString();
        Job job("merge");
        auto r = cache->merge({id}, job, {true});
        QVERIFY2(r.size() == 1 && r[0].merged && !r[0].skipped && !r[0].error, r[0].action.c_str());
        QVERIFY2(r[0].action.find("they stay for 10 min") != std::string::npos, r[0].action.c_str());
        QCOMPARE(testsupport::readFile(f.storageDir() + "/1003/merged"), f.entry("1003").blob);
        QCOMPARE(QDir(f.storageDir() + "/1003/parts").entryList(QDir::Files).size(), 12);
        const auto state = [&] {
            for (const auto& x : cache->entries())
                if (x.id == id)
                    return x.state;
            return EntryState::Unmerged;
        };
        QCOMPARE(state(), EntryState::Merged);
        // Within the grace: planned as kept, not as work.
        auto plan = cache->planMerge({id});
        QVERIFY2(plan.size() == 1 && plan[0].skipped && plan[0].action.find("keep the 12 parts for") == 0,
                 plan[0].action.c_str());
        Job again("merge");
        cache->merge({id}, again, {true});
        QCOMPARE(QDir(f.storageDir() + "/1003/parts").entryList(QDir::Files).size(), 12);
        // Past it: the parts go, as the server's cleanup:parts would.
        f.exec(QString("UPDATE storage_locations SET mergedAt = %1 WHERE folderName = '1003'")
                   .arg(QDateTime::currentMSecsSinceEpoch() - 11 * 60 * 1000));
        Job later("merge");
        r = cache->merge({id}, later, {true});
        QVERIFY2(r.size() == 1 && !r[0].skipped && !r[0].error, r[0].action.c_str());
        QVERIFY(!QFileInfo::exists(f.storageDir() + "/1003/parts"));
        QCOMPARE(state(), EntryState::PartsDeleted);
    }

    // Two `merge --write --force` of one entry at once, 30 times: both exit
    // 0, one merges and the other skips (or waits its turn), and the result
    // is the server's end state with the right bytes.
    // A temp merged file names its writer: one of a process that has gone
    // (killed mid-merge) is removed when the next merge starts, in either
    // form (OutputFile's .merged.cachescope-PID-HEX, merged.tmp-PID of
    // earlier versions); one of a process that runs stops the merge.
    void leftoverTempsGoLiveOnesStopTheMerge()
    {
        QProcess gone;
        gone.start(QStringLiteral("true"));
        QVERIFY(gone.waitForStarted());
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished());
        QProcess alive;
        alive.start(QStringLiteral("sleep"), {QStringLiteral("60")});
        QVERIFY(alive.waitForStarted());
        const QString hex = QStringLiteral("0123456789abcdef");
        for (const bool live : {false, true}) {
            QTemporaryDir dir;
            ActionsCacheFixture f(dir.path());
            const QString folder = f.storageDir() + "/1003";
            const QStringList dead{".merged.cachescope-" + QString::number(deadPid) + "-" + hex,
                                   "merged.tmp-" + QString::number(deadPid)};
            for (const QString& name : dead)
                QVERIFY(testsupport::writeFile(folder + "/" + name, "half a merge"));
            const QString running = ".merged.cachescope-" + QString::number(alive.processId()) + "-" + hex;
            if (live)
                QVERIFY(testsupport::writeFile(folder + "/" + running, "a merge under way"));
            auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()), true);
            Job job("merge");
            const auto results = cache->merge({f.entry("1003").id.toStdString()}, job, {true, 0});
            QCOMPARE(int(results.size()), 1);
            const QStringList names = QDir(folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
            if (live) {
                QVERIFY2(results[0].skipped && !results[0].merged, results[0].action.c_str());
                QVERIFY2(results[0].action.find("another cachescope merge is writing") != std::string::npos,
                         results[0].action.c_str());
                QVERIFY2(names.contains(running) && !names.contains("merged"), qPrintable(names.join(' ')));
            } else {
                QVERIFY2(results[0].merged, results[0].action.c_str());
                QCOMPARE(names, QStringList{"merged"});
                QCOMPARE(testsupport::readFile(folder + "/merged"), f.entry("1003").blob);
            }
        }
        alive.kill();
        alive.waitForFinished();
    }

    void twoMergesAtOnceTakeTurns()
    {
        int failures = 0;
        QStringList errors;
        for (int round = 0; round < 30; ++round) {
            QTemporaryDir dir;
            ActionsCacheFixture f(dir.path());
            const QString id = f.entry("1003").id;
            QProcess a, b;
            const QStringList args{"actions-cache", "merge", f.dataDir(), id, "--write", "--force", "--parts-grace", "0"};
            a.start(CACHESCOPE_CLI, args);
            b.start(CACHESCOPE_CLI, args);
            a.waitForFinished(60000);
            b.waitForFinished(60000);
            for (QProcess* p : {&a, &b})
                if (p->exitStatus() != QProcess::NormalExit || p->exitCode() != 0) {
                    ++failures;
                    errors << QString::fromUtf8(p->readAllStandardError()).trimmed();
                }
            QCOMPARE(testsupport::readFile(f.storageDir() + "/1003/merged"), f.entry("1003").blob);
            QCOMPARE(QDir(f.storageDir() + "/1003").entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                     QStringList{"merged"});
        }
        QVERIFY2(failures == 0, qPrintable(QString::number(failures) + " failed runs: " + errors.join(" | ")));
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsRaces)
#include "tst_actions_races.moc"
