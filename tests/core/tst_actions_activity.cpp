// Whether the server runs, as the system shows it (issue 21): another
// process holding sqlite.db (or something below the storage) open, other
// sessions on the PostgreSQL database, something answering at --server;
// row times only as the second signal. Each refusal names the signal and
// what clears it, and --json refusals are a JSON document on stdout. The
// "server" here is an independent process: bash holding a descriptor, a
// libpq session that names itself like a server's pool, a TCP listener.
#include "common/ActionsCacheFixture.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/PgConnection.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>

#include <thread>

using namespace cs;
using namespace cs::actions;
using testsupport::ActionsCacheFixture;

namespace {

// A process of its own holding `path` open until it is killed.
struct Holder {
    QProcess p;
    explicit Holder(const QString& path)
    {
        p.start("bash", {"-c", "exec 3<\"$1\"; echo ready; exec sleep 120", "holder", path});
        p.waitForReadyRead(10000);
    }
    ~Holder()
    {
        p.kill();
        p.waitForFinished();
    }
};

// Every row of the fixture aged past the activity window, so only the
// system's signals can make it look active.
void ageRows(ActionsCacheFixture& f)
{
    const QString old = QString::number(QDateTime::currentMSecsSinceEpoch() - 3600 * 1000);
    f.exec("UPDATE cache_entries SET updatedAt = min(updatedAt, " + old + ")");
    f.exec("UPDATE storage_locations SET mergeStartedAt = min(mergeStartedAt, " + old + "), mergedAt = min(mergedAt, "
           + old + "), lastDownloadedAt = min(lastDownloadedAt, " + old + ")");
    f.exec("UPDATE uploads SET createdAt = min(createdAt, " + old + "), lastPartUploadedAt = min(lastPartUploadedAt, "
           + old + ")");
}

} // namespace

class TestActionsActivity : public QObject {
    Q_OBJECT

    testsupport::PgTestServer pg_;

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
    }

    void quietDataIsNotActive()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageRows(f);
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()), true);
        const Activity a = cache->activity();
        QVERIFY2(!a.active, a.reason.c_str());
        // A write goes through without --force.
        const auto r = testsupport::cli({"actions-cache", "merge", f.dataDir(), f.entry("1005").id, "--write"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void aProcessHoldingTheDatabaseIsTheServer()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageRows(f);
        Holder server(f.dbPath());
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()), true);
        const Activity a = cache->activity();
        QVERIFY(a.active);
        QCOMPARE(a.signal, ActivitySignal::ProcessHoldsDatabase);
        QVERIFY2(a.reason.find("process " + std::to_string(server.p.processId())) != std::string::npos, a.reason.c_str());
        QVERIFY2(a.reason.find("sqlite.db") != std::string::npos, a.reason.c_str());
        QVERIFY2(a.clears.find("stop") != std::string::npos, a.clears.c_str());

        // The CLI refuses, says which signal and what clears it; --json gets a document on stdout.
        auto r = testsupport::cli({"actions-cache", "merge", f.dataDir(), "--write"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("process " + QByteArray::number(server.p.processId())), r.err.constData());
        QVERIFY2(r.err.contains("--force"), r.err.constData());
        r = testsupport::cli({"actions-cache", "evict", f.dataDir(), "--key", "x", "--write", "--json"});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QVERIFY2(doc["refused"].toBool(), r.out.constData());
        QCOMPARE(doc["activity"].toObject()["signal"].toString(), QString("process-holds-database"));
        // --force overrides it.
        r = testsupport::cli({"actions-cache", "merge", f.dataDir(), f.entry("1005").id, "--write", "--force"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void aProcessInTheStorageIsActivity()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageRows(f);
        Holder download(f.storageDir() + "/1003/parts/4");
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()), true);
        const Activity a = cache->activity();
        QCOMPARE(a.signal, ActivitySignal::ProcessHoldsStorage);
        QVERIFY2(a.reason.find("1003/parts/4") != std::string::npos, a.reason.c_str());
    }

    // Row times are the second signal, and the refusal says when it clears.
    void recentRowsAloneSayWhenTheyClear()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageRows(f);
        f.exec("UPDATE storage_locations SET lastDownloadedAt = "
               + QString::number(QDateTime::currentMSecsSinceEpoch() - 120 * 1000) + " WHERE folderName = '1001'");
        auto cache = ActionsCache::open(resolveDataDir(f.dataDir().toStdString()), true);
        const Activity a = cache->activity();
        QCOMPARE(a.signal, ActivitySignal::RecentRows);
        QVERIFY2(a.reason.find("'linux-cargo-merged' was downloaded 2 min ago") != std::string::npos, a.reason.c_str());
        QVERIFY2(a.clears.find("wait 2 min") == 0, a.clears.c_str());   // 5 min - 2 min, a moment less
    }

    void somethingAnsweringAtServerUrlIsActivity()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageRows(f);
        QTcpServer http;
        QVERIFY(http.listen(QHostAddress::LocalHost));
        QObject::connect(&http, &QTcpServer::newConnection, &http, [&http] {
            QTcpSocket* s = http.nextPendingConnection();
            QObject::connect(s, &QTcpSocket::readyRead, s, [s] {
                s->readAll();
                s->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK");
                s->disconnectFromHost();
            });
        });
        const QString url = "http://127.0.0.1:" + QString::number(http.serverPort());
        QProcess p;
        p.start(CACHESCOPE_CLI, {"actions-cache", "merge", f.dataDir(), "--write", "--server", url});
        while (!p.waitForFinished(20))
            QCoreApplication::processEvents();
        QCOMPARE(p.exitCode(), 1);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("the server answers at " + url.toUtf8() + " (HTTP/1.1 200 OK)"), err.constData());
        // Nothing listening there: not a signal.
        http.close();
        const auto r = testsupport::cli({"actions-cache", "merge", f.dataDir(), f.entry("1005").id, "--write", "--server", url});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void otherPostgresSessionsAreTheServer()
    {
        QTemporaryDir dir;
        ActionsCacheFixture f(dir.path());
        ageRows(f);
        remote::PgConnection::connect(pg_.conninfo().toStdString())->exec("CREATE DATABASE act");
        const std::string conninfo = pg_.conninfo("act").toStdString();
        {
            auto loader = remote::PgConnection::connect(conninfo);
            testsupport::loadRows(f.dbPath(), *loader);
        }
        auto cache = std::make_unique<ActionsCache>(openPostgresCatalog(conninfo, true),
                                                    openFilesystemStorage(f.storageDir().toStdString()));
        Activity a = cache->activity();
        QVERIFY2(!a.active, a.reason.c_str());   // our own sessions are not the server
        // A server's pool: an idle session of another client, named as kysely's pg pool leaves it.
        auto server = remote::PgConnection::connect(conninfo + " application_name=github-actions-cache-server");
        a = cache->activity();
        QCOMPARE(a.signal, ActivitySignal::DatabaseSessions);
        QVERIFY2(a.reason.find("github-actions-cache-server") != std::string::npos, a.reason.c_str());
        QVERIFY2(a.reason.find("session ") == 0, a.reason.c_str());
        Job job("merge");
        QVERIFY_THROWS_EXCEPTION(ServerActive, cache->merge({}, job));
        server.reset();
        // Gone: quiet again (PostgreSQL drops the backend at disconnect; give it a moment).
        for (int i = 0; i < 50 && cache->activity().active; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        QVERIFY(!cache->activity().active);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestActionsActivity)
#include "tst_actions_activity.moc"
