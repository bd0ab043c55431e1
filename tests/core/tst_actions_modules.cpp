// The remote backends are modules loaded when a location names one
// (core/actions-cache/RemoteModule.h): cachescope-cli links none of libpq,
// libmariadb and libcurl (ldd), a local command and --version map none of
// them to their end (/proc/PID/maps at the exit, common/ExitMaps.h), a
// PostgreSQL, MySQL or S3 location loads just its own module's library, and
// a missing module is one sentence naming the package to install; --version
// and frames map neither libarchive nor libcrypto (opened on first use).
#include "common/ActionsCacheFixture.h"
#include "common/ExitMaps.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/RemoteBackends.h"
#include "core/remote/PgConnection.h"
#include "core/remote/S3Client.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace cs;

class TestActionsModules : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::unique_ptr<testsupport::ActionsCacheFixture> fixture_;
    testsupport::PgTestServer pg_;
    testsupport::S3TestServer s3server_;

    static QString cli() { return QStringLiteral(CACHESCOPE_CLI); }

    static void checkNoRemoteLibraries(const testsupport::ExitMapsRun& r, const char* what)
    {
        QVERIFY2(r.why.empty(), r.why.c_str());
        QVERIFY2(r.exitCode == 0, qPrintable(QString(what) + ": " + QString::fromUtf8(r.err)));
        QVERIFY2(r.maps.find("/cachescope-cli") != std::string::npos, "the maps are not the CLI's");
        const QStringList found = testsupport::remoteLibrariesIn(r.maps);
        QVERIFY2(found.isEmpty(), qPrintable(QString(what) + " maps " + found.join(", ")));
        for (const char* module : {"/cachescope-postgres.so", "/cachescope-mysql.so", "/cachescope-s3.so"})
            QVERIFY2(r.maps.find(module) == std::string::npos, module);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        fixture_ = std::make_unique<testsupport::ActionsCacheFixture>(dir_.path() + "/fixture");
    }

    void theToolLinksNoRemoteLibrary()
    {
        const std::string out = testsupport::ldd(cli());
        QVERIFY2(out.find("libzstd") != std::string::npos, out.c_str());   // ldd did list it
        const QStringList found = testsupport::remoteLibrariesIn(out);
        QVERIFY2(found.isEmpty(), qPrintable("cachescope-cli links " + found.join(", ")));
    }

    // Nor SQLite (core/util/LazySqlite.cpp), nor the C++ runtime, which is
    // linked in (app/CMakeLists.txt) unless a sanitizer build needs it shared.
    void theToolLinksNeitherSqliteNorTheSharedCxxRuntime()
    {
        const std::string out = testsupport::ldd(cli());
        QVERIFY2(out.find("libzstd") != std::string::npos, out.c_str());
        QVERIFY2(out.find("libsqlite3") == std::string::npos, out.c_str());
        const bool sanitized = out.find("libasan") != std::string::npos || out.find("libtsan") != std::string::npos ||
                               out.find("libubsan") != std::string::npos;
        if (!sanitized)
            QVERIFY2(out.find("libstdc++") == std::string::npos, out.c_str());
    }

    // libarchive, libcrypto and SQLite are opened on first use (core/util/LazyLibrary.h).
    static void checkNoLazyLibraries(const testsupport::ExitMapsRun& r, const char* what)
    {
        for (const char* lib : {"/libarchive.so", "/libcrypto.so", "/libxml2.so", "/libicuuc.so", "/libsqlite3.so"})
            QVERIFY2(r.maps.find(lib) == std::string::npos, qPrintable(QString(what) + " maps " + lib));
    }

    void versionMapsNoRemoteLibrary()
    {
        const auto r = testsupport::runToExitMaps({cli(), "--version"});
        checkNoRemoteLibraries(r, "--version");
        checkNoLazyLibraries(r, "--version");
        QVERIFY(r.out.startsWith("cachescope-cli "));
    }

    void framesMapsNoRemoteLibrary()
    {
        const QString raw = dir_.path() + "/f.bin", zst = dir_.path() + "/f.zst";
        QFile f(raw);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(testsupport::randomBytes(1 << 20, 24));
        f.close();
        QCOMPARE(testsupport::zstd({"-q", "-f", raw, "-o", zst}).exitCode, 0);
        const auto r = testsupport::runToExitMaps({cli(), "frames", zst});
        checkNoRemoteLibraries(r, "frames");
        checkNoLazyLibraries(r, "frames");
        QVERIFY2(r.out.contains("frame"), r.out.constData());
    }

    void aLocalDataDirMapsNoRemoteLibrary()
    {
        const auto r = testsupport::runToExitMaps(
            {cli(), "actions-cache", "ls", "--json", "--db", fixture_->dbPath(), "--storage", fixture_->storageDir()});
        checkNoRemoteLibraries(r, "actions-cache ls of a data dir");
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["entries"].toArray().size(), 5);
    }

    // A store's open checks its control file's SHA-256 (72 bytes) without
    // libcrypto (core/util/Sha256Compact.cpp); listing it needs SQLite only.
    void aStoreListingMapsNoLibcrypto()
    {
        const QString store = dir_.path() + "/store";
        const auto init = testsupport::cli({"store", "init", store});
        QVERIFY2(init.exitCode == 0, init.err.constData());
        const auto r = testsupport::runToExitMaps({cli(), "store", "ls", store, "--json"});
        QVERIFY2(r.why.empty(), r.why.c_str());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.maps.find("/libsqlite3.so") != std::string::npos, "store ls did not map SQLite");  // it did read
        QVERIFY2(r.maps.find("/libcrypto.so") == std::string::npos, "store ls maps libcrypto");
    }

    // PostgreSQL + the fixture's folder: libpq and the module, nothing else.
    void aPostgresLocationLoadsItsModuleOnly()
    {
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
        remote::PgConnection::connect(pg_.conninfo().toStdString())->exec("CREATE DATABASE m");
        auto c = remote::PgConnection::connect(pg_.conninfo("m").toStdString());
        testsupport::loadRows(fixture_->dbPath(), *c);
        const auto r = testsupport::runToExitMaps(
            {cli(), "actions-cache", "ls", "--json", "--db", pg_.url("m"), "--storage", fixture_->storageDir()});
        QVERIFY2(r.why.empty(), r.why.c_str());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["entries"].toArray().size(), 5);
        QCOMPARE(testsupport::remoteLibrariesIn(r.maps), QStringList{"libpq"});
        QVERIFY(r.maps.find("/cachescope-postgres.so") != std::string::npos);
    }

    // SQLite + S3: libcurl and the S3 module only.
    void anS3LocationLoadsItsModuleOnly()
    {
        QString why;
        QVERIFY2(s3server_.start({"cache"}, &why), qPrintable("cannot start the S3 test server: " + why));
        remote::S3Config loader;
        loader.endpoint = s3server_.endpoint().toStdString();
        loader.bucket = "cache";
        loader.accessKeyId = testsupport::S3TestServer::accessKeyId().toStdString();
        loader.secretAccessKey = testsupport::S3TestServer::secretAccessKey().toStdString();
        remote::S3Client s3(loader);
        testsupport::uploadStorage(s3, "m/gh-actions-cache", fixture_->storageDir());
        const auto r = testsupport::runToExitMaps(
            {cli(), "actions-cache", "ls", "--json", "--db", fixture_->dbPath(), "--storage", "s3://cache/m/gh-actions-cache",
             "--endpoint", s3server_.endpoint()},
            {"AWS_ACCESS_KEY_ID=" + testsupport::S3TestServer::accessKeyId(),
             "AWS_SECRET_ACCESS_KEY=" + testsupport::S3TestServer::secretAccessKey()});
        QVERIFY2(r.why.empty(), r.why.c_str());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["entries"].toArray().size(), 5);
        QCOMPARE(testsupport::remoteLibrariesIn(r.maps), QStringList{"libcurl"});
        QVERIFY(r.maps.find("/cachescope-s3.so") != std::string::npos);
    }

    // MySQL: the module loads libmariadb and reports the refused connection.
    void aMysqlLocationLoadsItsModuleOnly()
    {
        const auto r = testsupport::runToExitMaps({cli(), "actions-cache", "ls", "--db",
                                                   "mysql://nobody@127.0.0.1:1/cache", "--storage", fixture_->storageDir()});
        QVERIFY2(r.why.empty(), r.why.c_str());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("127.0.0.1") && !r.err.contains("not installed"), r.err.constData());
        QCOMPARE(testsupport::remoteLibrariesIn(r.maps), QStringList{"libmariadb"});
    }

    void aMissingModuleNamesThePackage_data()
    {
        QTest::addColumn<QString>("db");
        QTest::addColumn<QString>("storage");
        QTest::addColumn<QString>("package");
        QTest::addColumn<QString>("what");   // what the sentence says is missing
        QTest::newRow("postgres") << "postgres://u:secret-pw@127.0.0.1:1/cache" << "" << "cachescope-postgres"
                                  << "PostgreSQL support";
        QTest::newRow("mysql") << "mysql://u@127.0.0.1:1/cache" << "" << "cachescope-mysql" << "MySQL/MariaDB support";
        QTest::newRow("s3") << "" << "s3://bucket/prefix" << "cachescope-s3" << "S3 and Google Cloud Storage support";
        // GCS's XML API goes through the S3 module: the sentence names GCS too.
        QTest::newRow("gs") << "" << "gs://bucket/prefix" << "cachescope-s3" << "S3 and Google Cloud Storage support";
    }
    void aMissingModuleNamesThePackage()
    {
        QFETCH(QString, db);
        QFETCH(QString, storage);
        QFETCH(QString, package);
        QFETCH(QString, what);
        QTemporaryDir empty;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("CACHESCOPE_MODULE_DIR", empty.path());
        p.setProcessEnvironment(env);
        p.start(cli(), {"actions-cache", "ls", "--db", db.isEmpty() ? fixture_->dbPath() : db, "--storage",
                        storage.isEmpty() ? fixture_->storageDir() : storage});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.exitCode() != 0);
        const QByteArray err = p.readAllStandardError().trimmed();
        QVERIFY2(err.contains((what + " is not installed").toUtf8()) && err.contains(package.toUtf8()) &&
                     err.contains(QDir(empty.path()).filePath("cachescope-").toUtf8()),
                 err.constData());
        QVERIFY2(!err.contains("secret-pw"), err.constData());
        QVERIFY2(err.count('\n') <= 1, err.constData());   // one sentence (and the usage hint at most)
    }
};

QTEST_GUILESS_MAIN(TestActionsModules)
#include "tst_actions_modules.moc"
