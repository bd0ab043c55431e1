// The server's next schema on every catalog (SQLite, PostgreSQL, MariaDB):
// the v9.4.7 fixture with what the server's code after v9.4.7 adds
// (storage_locations."sizeBytes", merge_leases, storage_reader_leases, as
// lib/db.ts types them) and a column and a table no server has (a later
// one may): listing and verify read it like v9.4.7, sizeBytes is read and
// checked against the files, a write refuses on a location under an
// unexpired lease and goes ahead once it expired, and a schema without a
// column cachescope needs is refused in one sentence.
#include "common/ActionsCacheFixture.h"
#include "common/DeploymentSummary.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/MysqlConnection.h"
#include "core/remote/PgConnection.h"
#include "core/util/Error.h"

#include <QDateTime>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <functional>
#include <memory>

using namespace cs;
using namespace cs::actions;
using testsupport::ActionsCacheFixture;

namespace {

enum class Db { Sqlite, Postgres, Mysql };

QString locationIdOf(const QString& folder) { return "0b6e2d0c-" + folder + "-4c55-9a51-00000000" + folder; }

// Bytes below storageDir/folder, as the server's getFolderSize counts them.
qint64 folderBytes(const QString& storageDir, const QString& folder)
{
    qint64 total = 0;
    QDirIterator it(storageDir + "/" + folder, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        total += it.fileInfo().size();
    }
    return total;
}

qint64 nowMs() { return QDateTime::currentMSecsSinceEpoch(); }

} // namespace

class TestActionsSchema : public QObject {
    Q_OBJECT

    testsupport::PgTestServer pg_;
    testsupport::MariaDbTestServer my_;
    QTemporaryDir dir_;
    int counter_ = 0;

    // One deployment of the fixture: its files in a folder of their own, its
    // rows in the catalog under test.
    struct Deployment {
        Db db = Db::Sqlite;
        std::unique_ptr<ActionsCacheFixture> fixture;
        std::string catalog;      // SQLite path, PostgreSQL conninfo or MySQL URL
        std::function<void(const QString&)> exec;   // SQL as root, quoting with q()
        char quote = '"';
        QString q(const QString& name) const { return QString(quote) + name + QString(quote); }
    };

    Deployment deploy(Db db)
    {
        Deployment d;
        d.db = db;
        const QString folder = dir_.path() + "/d" + QString::number(++counter_);
        QDir().mkpath(folder);
        d.fixture = std::make_unique<ActionsCacheFixture>(folder);
        const std::string name = "d" + std::to_string(counter_);
        if (db == Db::Sqlite) {
            d.catalog = d.fixture->dbPath().toStdString();
            ActionsCacheFixture* f = d.fixture.get();
            d.exec = [f](const QString& sql) { f->exec(sql); };
        } else if (db == Db::Postgres) {
            remote::PgConnection::connect(pg_.conninfo().toStdString())->exec("CREATE DATABASE " + name);
            d.catalog = pg_.conninfo(QString::fromStdString(name)).toStdString();
            testsupport::loadRows(d.fixture->dbPath(), *remote::PgConnection::connect(d.catalog));
            const std::string conninfo = d.catalog;
            d.exec = [conninfo](const QString& sql) {
                auto c = remote::PgConnection::connect(conninfo);
                for (const QString& s : sql.split(';', Qt::SkipEmptyParts))
                    if (!s.trimmed().isEmpty())
                        c->exec(s.toStdString());
            };
        } else {
            QString why;
            if (!my_.sql("CREATE DATABASE " + QString::fromStdString(name), {}, &why))
                qFatal("%s", qPrintable(why));
            d.catalog = my_.url(QString::fromStdString(name)).toStdString();
            testsupport::loadRows(d.fixture->dbPath(),
                                  *remote::MysqlConnection::connect(remote::parseMysqlUrl(d.catalog),
                                                                    remote::MysqlConnection::ReadWriteSession,
                                                                    testsupport::MariaDbTestServer::password().toStdString()));
            d.quote = '`';
            const QString dbName = QString::fromStdString(name);
            d.exec = [this, dbName](const QString& sql) {
                QString why;
                if (!my_.sql(sql, dbName, &why))
                    throw Error(why.toStdString());
            };
        }
        return d;
    }

    std::unique_ptr<ActionsCatalog> catalogOf(const Deployment& d, bool writable)
    {
        if (d.db == Db::Sqlite)
            return openSqliteCatalog(d.catalog, writable);
        if (d.db == Db::Postgres)
            return openPostgresCatalog(d.catalog, writable);
        return openMysqlCatalog(d.catalog, writable, testsupport::MariaDbTestServer::password().toStdString());
    }
    std::unique_ptr<ActionsCache> open(const Deployment& d, bool writable)
    {
        return std::make_unique<ActionsCache>(catalogOf(d, writable),
                                              openFilesystemStorage(d.fixture->storageDir().toStdString()));
    }

    // The newer server's additions, typed as its migrations type them on
    // each driver (ids text, varchar(36) on MySQL; times bigint ms), and
    // what no server has yet: a column of cache_entries and a table.
    void evolve(const Deployment& d)
    {
        const QString id = d.db == Db::Mysql ? "varchar(36)" : "text";
        const QString text = d.db == Db::Mysql ? "varchar(255)" : "text";
        d.exec("ALTER TABLE storage_locations ADD COLUMN " + d.q("sizeBytes") + " bigint");
        d.exec("CREATE TABLE merge_leases (" + d.q("storageLocationId") + " " + id + " PRIMARY KEY, " + d.q("token") + " "
               + text + " NOT NULL, " + d.q("expiresAt") + " bigint NOT NULL)");
        d.exec("CREATE TABLE storage_reader_leases (" + d.q("id") + " " + id + " PRIMARY KEY, " + d.q("storageLocationId")
               + " " + id + " NOT NULL, " + d.q("scope") + " " + text + " NOT NULL, " + d.q("expiresAt")
               + " bigint NOT NULL)");
        d.exec("ALTER TABLE cache_entries ADD COLUMN " + d.q("pinnedBy") + " " + text);
        d.exec("CREATE TABLE eager_merges (" + d.q("id") + " " + id + " PRIMARY KEY)");
        // The backfill's sizes: the folder's bytes, as the server's reconcile writes them.
        for (const QString& folder : {QStringLiteral("1001"), QStringLiteral("1002"), QStringLiteral("1003"),
                                      QStringLiteral("1004"), QStringLiteral("1005"), QStringLiteral("1006")})
            setSize(d, folder, folderBytes(d.fixture->storageDir(), folder));
    }
    void setSize(const Deployment& d, const QString& folder, qint64 bytes)
    {
        d.exec("UPDATE storage_locations SET " + d.q("sizeBytes") + " = " + QString::number(bytes) + " WHERE "
               + d.q("folderName") + " = '" + folder + "'");
    }
    void mergeLease(const Deployment& d, const QString& folder, const QString& token, qint64 expiresAt)
    {
        d.exec("INSERT INTO merge_leases VALUES ('" + locationIdOf(folder) + "', '" + token + "', "
               + QString::number(expiresAt) + ")");
    }
    void readerLease(const Deployment& d, const QString& folder, const QString& id, qint64 expiresAt)
    {
        d.exec("INSERT INTO storage_reader_leases VALUES ('" + id + "', '" + locationIdOf(folder) + "', 'parts', "
               + QString::number(expiresAt) + ")");
    }
    void expireLeases(const Deployment& d)
    {
        const QString past = QString::number(nowMs() - 1000);
        d.exec("UPDATE merge_leases SET " + d.q("expiresAt") + " = " + past);
        d.exec("UPDATE storage_reader_leases SET " + d.q("expiresAt") + " = " + past);
    }

    void addBackends()
    {
        QTest::addColumn<int>("db");
        QTest::newRow("sqlite") << int(Db::Sqlite);
        QTest::newRow("postgresql") << int(Db::Postgres);
        QTest::newRow("mariadb") << int(Db::Mysql);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
        QVERIFY2(my_.start(&why), qPrintable("cannot start the MariaDB test server: " + why));
    }

    void newerSchemaListsAndVerifiesLikeV947_data() { addBackends(); }
    void newerSchemaListsAndVerifiesLikeV947()
    {
        QFETCH(int, db);
        const Deployment plain = deploy(Db::Sqlite);
        const Deployment d = deploy(Db(db));
        evolve(d);
        auto want = open(plain, false);
        auto got = open(d, false);
        QCOMPARE(testsupport::entrySummary(got->entries()), testsupport::entrySummary(want->entries()));
        QCOMPARE(got->uploads().size(), want->uploads().size());
        Job j1, j2;
        QCOMPARE(testsupport::findingKinds(got->verify(j2)), testsupport::findingKinds(want->verify(j1)));
        // sizeBytes comes through with each entry (and is absent on v9.4.7).
        for (const auto& e : got->entries())
            QCOMPARE(e.sizeBytes, std::optional<int64_t>(folderBytes(d.fixture->storageDir(),
                                                                     QString::fromStdString(e.folderName))));
        for (const auto& e : want->entries())
            QVERIFY(!e.sizeBytes);
        bool sawLonely = false;
        for (const auto& l : got->catalog().locationsWithoutEntry()) {
            QCOMPARE(l.sizeBytes, std::optional<int64_t>(folderBytes(d.fixture->storageDir(), "1006")));
            sawLonely = true;
        }
        QVERIFY(sawLonely);
        QVERIFY(got->catalog().leases(nowMs()).empty());
    }

    void verifyChecksSizeBytesAgainstTheFiles_data() { addBackends(); }
    void verifyChecksSizeBytesAgainstTheFiles()
    {
        QFETCH(int, db);
        const Deployment d = deploy(Db(db));
        evolve(d);
        // 1002 holds its parts and its merged object: either the blob's size
        // (at upload) or the folder's (a backfill) is right; 5 bytes is not.
        setSize(d, "1002", d.fixture->entry("1002").size);
        setSize(d, "1001", 5);
        auto cache = open(d, false);
        Job job;
        std::vector<Finding> wrong;
        for (auto& f : cache->verify(job))
            if (f.kind == FindingKind::SizeBytesWrong)
                wrong.push_back(std::move(f));
        QCOMPARE(int(wrong.size()), 1);
        QCOMPARE(wrong[0].folder, std::string("1001"));
        QCOMPARE(wrong[0].entryId, d.fixture->entry("1001").id.toStdString());
        QVERIFY2(wrong[0].message.find("sizeBytes says 5 bytes but its blob is "
                                       + std::to_string(d.fixture->entry("1001").size)) != std::string::npos,
                 wrong[0].message.c_str());
    }

    void writesRefuseUnderAnUnexpiredLease_data() { addBackends(); }
    void writesRefuseUnderAnUnexpiredLease()
    {
        QFETCH(int, db);
        const Deployment d = deploy(Db(db));
        evolve(d);
        const qint64 inAMinute = nowMs() + 60 * 1000;
        mergeLease(d, "1003", "7d3c0f7e-merge-token", inAMinute);
        readerLease(d, "1005", "reader-of-1005", inAMinute);
        readerLease(d, "1006", "reader-of-1006", inAMinute);
        const auto before = testsupport::readFile(d.fixture->dbPath());   // SQLite: the file itself
        WriteOptions force;
        force.force = true;       // leases hold even against --force
        force.partsGraceMs = 0;
        auto cache = open(d, true);
        QCOMPARE(int(cache->catalog().leases(nowMs()).size()), 3);
        const FixtureEntryIds ids{d.fixture->entry("1003"), d.fixture->entry("1005")};

        // Each catalog write refuses by itself, in its transaction ...
        std::optional<LocationRow> row1003;
        for (auto& l : cache->catalog().locations())
            if (l.folderName == "1003")
                row1003 = std::move(l);
        QVERIFY(row1003);
        QVERIFY_THROWS_EXCEPTION(LeaseHeld, (void)cache->catalog().setMergeStarted(*row1003, nowMs()));
        QVERIFY_THROWS_EXCEPTION(LeaseHeld, (void)cache->catalog().setPartsDeleted(*row1003, nowMs()));
        QVERIFY_THROWS_EXCEPTION(LeaseHeld, (void)cache->catalog().deleteLocation(row1003->id, row1003));
        // ... and a merge's plan already says so.
        const auto plan = cache->planMerge({ids.merge.toStdString()}, force);
        QVERIFY2(plan.size() == 1 && plan[0].skipped && plan[0].action.find("7d3c0f7e-merge-token") != std::string::npos,
                 plan.empty() ? "" : plan[0].action.c_str());
        // merge
        Job j1;
        const auto merged = cache->merge({ids.merge.toStdString()}, j1, force);
        QCOMPARE(int(merged.size()), 1);
        QVERIFY(merged[0].skipped && !merged[0].merged && !merged[0].error);
        QVERIFY2(merged[0].action.find("merge_leases") != std::string::npos
                     && merged[0].action.find("7d3c0f7e-merge-token") != std::string::npos
                     && merged[0].action.find(locationIdOf("1003").toStdString()) != std::string::npos,
                 merged[0].action.c_str());
        // evict (and the delete of one key)
        ActionsEvictPolicy byKey;
        byKey.keys = {ids.evictKey.toStdString()};
        std::vector<ActionsSkip> skipped;
        // The dry run's plan already keeps it, with the write's sentence.
        auto planned = cache->planEvict(byKey);
        QCOMPARE(int(planned.size()), 1);
        const auto held = cache->holdBackFromEvict(planned, force);
        QVERIFY(planned.empty());
        QCOMPARE(int(held.size()), 1);
        QVERIFY2(held[0].reason.find("reader lease reader-of-1005") != std::string::npos, held[0].reason.c_str());
        Job j2;
        QVERIFY(cache->evict(byKey, j2, force, &skipped).empty());
        QCOMPARE(int(skipped.size()), 1);
        QVERIFY2(skipped[0].reason.find("reader lease reader-of-1005") != std::string::npos
                     && skipped[0].reason.find("storage_reader_leases") != std::string::npos,
                 skipped[0].reason.c_str());
        // reaping orphans: the location without an entry stays under its lease
        Job j3;
        for (const auto& f : cache->removeOrphans(j3, force))
            QVERIFY2(f.kind != FindingKind::LocationWithoutEntry, f.message.c_str());
        QVERIFY(QFileInfo::exists(d.fixture->storageDir() + "/1006"));
        QVERIFY(QFileInfo::exists(d.fixture->storageDir() + "/1003/parts/0"));
        QVERIFY(!QFileInfo::exists(d.fixture->storageDir() + "/1003/merged"));
        QVERIFY(QFileInfo::exists(d.fixture->storageDir() + "/1005"));
        {
            auto reread = open(d, false);
            bool lonely = false;
            for (const auto& l : reread->catalog().locationsWithoutEntry())
                lonely = lonely || l.folderName == "1006";
            QVERIFY(lonely);
            for (const auto& e : reread->entries())
                if (e.folderName == "1003")
                    QVERIFY(!e.mergeStartedAtMs && !e.mergedAtMs);
        }
        if (d.db == Db::Sqlite)
            QVERIFY(testsupport::readFile(d.fixture->dbPath()) == before);

        // Expired, the same writes go ahead.
        expireLeases(d);
        QVERIFY(cache->catalog().leases(nowMs()).empty());
        Job j4;
        const auto merged2 = cache->merge({ids.merge.toStdString()}, j4, force);
        QVERIFY2(merged2[0].merged && !merged2[0].skipped, merged2[0].action.c_str());
        skipped.clear();
        Job j5;
        QCOMPARE(int(cache->evict(byKey, j5, force, &skipped).size()), 1);
        QVERIFY(skipped.empty());
        Job j6;
        bool lonelyGone = false;
        for (const auto& f : cache->removeOrphans(j6, force))
            lonelyGone = lonelyGone || (f.kind == FindingKind::LocationWithoutEntry && f.folder == "1006");
        QVERIFY(lonelyGone);
        QVERIFY(!QFileInfo::exists(d.fixture->storageDir() + "/1006"));
        QVERIFY(!QFileInfo::exists(d.fixture->storageDir() + "/1005"));
    }

    void aSchemaWithoutANeededColumnIsRefusedInOneSentence_data()
    {
        QTest::addColumn<int>("db");
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("named");
        for (const auto& [name, db] : {std::pair{"sqlite", Db::Sqlite}, std::pair{"postgresql", Db::Postgres},
                                       std::pair{"mariadb", Db::Mysql}}) {
            QTest::newRow((std::string(name) + " partCount dropped").c_str())
                << int(db) << "ALTER TABLE storage_locations DROP COLUMN @partCount@" << "'storage_locations' has no column 'partCount'";
            QTest::newRow((std::string(name) + " lease without expiresAt").c_str())
                << int(db) << "CREATE TABLE merge_leases (@storageLocationId@ varchar(36), @token@ varchar(36))"
                << "'merge_leases' has no column 'expiresAt'";
        }
    }
    void aSchemaWithoutANeededColumnIsRefusedInOneSentence()
    {
        QFETCH(int, db);
        QFETCH(QString, change);
        QFETCH(QString, named);
        const Deployment d = deploy(Db(db));
        d.exec(change.replace('@', QChar(d.quote)));
        const std::string error = testsupport::errorOf([&] { catalogOf(d, false); });
        QVERIFY2(error.find(named.toStdString()) != std::string::npos, error.c_str());
        QVERIFY2(error.find("reads nothing from it") != std::string::npos, error.c_str());
        QVERIFY2(error.find('\n') == std::string::npos && error.find(". ") == std::string::npos, error.c_str());
        // The CLI says the same sentence and reads no row.
        if (d.db == Db::Sqlite) {
            const auto r = testsupport::cli({"actions-cache", "ls", d.fixture->dataDir()});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(named.toUtf8()), r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
    }

    void cliSaysWhichLeaseKeptAnEntry()
    {
        const Deployment d = deploy(Db::Sqlite);
        evolve(d);
        // ls --json carries each row's sizeBytes.
        const auto ls = testsupport::cli({"actions-cache", "ls", "--json", d.fixture->dataDir()});
        QVERIFY2(ls.exitCode == 0, ls.err.constData());
        int sized = 0;
        for (const QJsonValue v : QJsonDocument::fromJson(ls.out).object().value("entries").toArray()) {
            const QJsonObject e = v.toObject();
            QCOMPARE(qint64(e.value("size_bytes").toDouble()),
                     folderBytes(d.fixture->storageDir(), e.value("folder").toString()));
            ++sized;
        }
        QCOMPARE(sized, 5);
        readerLease(d, "1005", "reader-of-1005", nowMs() + 60 * 1000);
        // The dry run says what the write would keep, and why.
        const auto dry = testsupport::cli({"actions-cache", "evict", d.fixture->dataDir(), "--key",
                                           d.fixture->entry("1005").key, "--parts-grace", "0"});
        QVERIFY2(dry.exitCode == 0, dry.err.constData());
        QVERIFY2(dry.out.contains("would keep " + d.fixture->entry("1005").key.toUtf8())
                     && dry.out.contains("reader lease reader-of-1005") && dry.out.contains("0 entries"),
                 dry.out.constData());
        const auto dryJson = testsupport::cli({"actions-cache", "evict", d.fixture->dataDir(), "--key",
                                               d.fixture->entry("1005").key, "--parts-grace", "0", "--json"});
        const QJsonObject plan = QJsonDocument::fromJson(dryJson.out).object();
        QCOMPARE(plan.value("entries").toArray().size(), 0);
        QCOMPARE(plan.value("skipped").toArray().size(), 1);
        QVERIFY(plan.value("skipped").toArray()[0].toObject().value("reason").toString().contains("reader-of-1005"));
        const auto r = testsupport::cli({"actions-cache", "evict", d.fixture->dataDir(), "--key",
                                         d.fixture->entry("1005").key, "--write", "--force", "--parts-grace", "0"});
        QVERIFY2(r.out.contains("reader lease reader-of-1005") || r.err.contains("reader lease reader-of-1005"),
                 (r.out + r.err).constData());
        QVERIFY(QFileInfo::exists(d.fixture->storageDir() + "/1005"));
    }

private:
    struct FixtureEntryIds {
        FixtureEntryIds(const testsupport::FixtureEntry& toMerge, const testsupport::FixtureEntry& toEvict)
            : merge(toMerge.id), evictKey(toEvict.key)
        {
        }
        QString merge, evictKey;
    };
};

QTEST_GUILESS_MAIN(TestActionsSchema)
#include "tst_actions_schema.moc"
