// A deployment on Google Cloud Storage (STORAGE_DRIVER=gcs), opened by its
// gs:// URL. The server's GCS driver writes gh-actions-cache/<folder>/...
// with @google-cloud/storage; cachescope reads the bucket through GCS's XML
// API, which speaks the S3 protocol. Here the bucket is s3rver (started
// here) at an overridden endpoint, the fixture's files PUT under
// gh-actions-cache/ as the server's driver names them, the HMAC key from
// GOOGLE_HMAC_ACCESS_ID / GOOGLE_HMAC_SECRET. s3rver knows only AWS's
// signature, so these requests are signed the way GCS also accepts from an
// HMAC key (CACHESCOPE_GCS_SIGNING=aws4: AWS4-HMAC-SHA256, scope
// DATE/auto/s3/aws4_request); the GOOG4 request itself is checked in
// tst_remote_s3 (gcsRequestsAreSignedTheWayGcsWantsForAnHmacKey), and here
// s3rver's refusal of it shows it is what goes out by default.
#include "common/ActionsCacheFixture.h"
#include "common/DeploymentSummary.h"
#include "common/IndexChecks.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/S3Client.h"
#include "core/util/Error.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace cs;
using namespace cs::actions;

class TestActionsGcs : public QObject {
    Q_OBJECT

    testsupport::S3TestServer server_;
    QTemporaryDir dir_;
    std::unique_ptr<testsupport::ActionsCacheFixture> fixture_;

    // PUTs a fixture's files into bucket as the server's GCS driver names them.
    void load(const QString& bucket, const testsupport::ActionsCacheFixture& f)
    {
        remote::S3Config c;
        c.endpoint = server_.endpoint().toStdString();
        c.bucket = bucket.toStdString();
        c.accessKeyId = testsupport::S3TestServer::accessKeyId().toStdString();
        c.secretAccessKey = testsupport::S3TestServer::secretAccessKey().toStdString();
        remote::S3Client s3(c);
        testsupport::uploadStorage(s3, kServerKeyPrefix, f.storageDir());
    }

    std::unique_ptr<ActionsCache> openGcs(const testsupport::ActionsCacheFixture& f, const QString& bucket,
                                          bool writable)
    {
        DataDirPaths paths = resolveDataDir(f.dataDir().toStdString(), std::nullopt,
                                            ("gs://" + bucket).toStdString());
        paths.endpoint = server_.endpoint().toStdString();
        return ActionsCache::open(paths, writable);
    }

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(server_.start({"cache", "write"}, &why), qPrintable("cannot start the S3 test server: " + why));
        QVERIFY(dir_.isValid());
        QDir().mkpath(dir_.path() + "/read");
        fixture_ = std::make_unique<testsupport::ActionsCacheFixture>(dir_.path() + "/read");
        load("cache", *fixture_);
        qputenv("GOOGLE_HMAC_ACCESS_ID", testsupport::S3TestServer::accessKeyId().toUtf8());
        qputenv("GOOGLE_HMAC_SECRET", testsupport::S3TestServer::secretAccessKey().toUtf8());
        qputenv("CACHESCOPE_GCS_SIGNING", "aws4");
        // The S3 variables are not what a gs:// location reads.
        qunsetenv("AWS_ACCESS_KEY_ID");
        qunsetenv("AWS_SECRET_ACCESS_KEY");
    }

    void listingAndVerifyAgreeWithTheDataDir()
    {
        auto local = ActionsCache::open(resolveDataDir(fixture_->dataDir().toStdString()));
        auto gcs = openGcs(*fixture_, "cache", false);
        QCOMPARE(gcs->storage().describe(), std::string("gs://cache/gh-actions-cache"));
        QCOMPARE(gcs->storage().objectName("1001", "merged"), std::string("gs://cache/gh-actions-cache/1001/merged"));
        QCOMPARE(testsupport::entrySummary(gcs->entries()), testsupport::entrySummary(local->entries()));
        Job j1, j2;
        QCOMPARE(testsupport::findingKinds(gcs->verify(j2)), testsupport::findingKinds(local->verify(j1)));
        const auto& merged = fixture_->entry("1001");
        QByteArray all;
        auto in = gcs->storage().openMerged("1001");
        char buf[4096];
        while (size_t n = in->read(buf, sizeof buf))
            all.append(buf, qsizetype(n));
        QVERIFY(all == merged.blob);
    }

    // Size, parts and state orders and filters over every entry, through
    // the size index of this layout (SQLite rows, GCS objects), against the fixture's rows and bytes.
    void indexOrdersAndFiltersServeEveryEntry()
    {
        QTemporaryDir cacheHome;
        const testsupport::SavedCacheHome saved;
        testsupport::checkIndexOnLayout([&] { return openGcs(*fixture_, "cache", false); }, *fixture_, cacheHome);
    }

    void cliOpensTheBucketByItsGsUrl()
    {
        const auto r = testsupport::cli({"actions-cache", "ls", "--json", fixture_->dataDir(), "--storage", "gs://cache",
                                         "--endpoint", server_.endpoint()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonDocument doc = QJsonDocument::fromJson(r.out);
        QVERIFY2(doc.toJson().contains("linux-cargo-merged"), r.out.constData());
        const auto v = testsupport::cli({"actions-cache", "verify", fixture_->dataDir(), "--storage", "gs://cache",
                                         "--endpoint", server_.endpoint()});
        QCOMPARE(v.exitCode, 1);   // the fixture's findings
        QVERIFY2(v.out.contains("gs://cache/gh-actions-cache/9999"), v.out.constData());
    }

    void mergeWritesTheMergedObjectIntoTheBucket()
    {
        QDir().mkpath(dir_.path() + "/write");
        testsupport::ActionsCacheFixture f(dir_.path() + "/write");
        load("write", f);
        auto gcs = openGcs(f, "write", true);
        WriteOptions force;
        force.force = true;
        Job job;
        const auto results = gcs->merge({f.entry("1003").id.toStdString()}, job, force);
        QCOMPARE(int(results.size()), 1);
        QVERIFY2(results[0].merged, results[0].action.c_str());
        QByteArray all;
        auto in = gcs->storage().openMerged("1003");
        char buf[4096];
        while (size_t n = in->read(buf, sizeof buf))
            all.append(buf, qsizetype(n));
        QVERIFY(all == f.entry("1003").blob);
    }

    void gcsSigningGoesOutByDefault()
    {
        // Without the aws4 switch the requests carry GOOG4-HMAC-SHA256, which
        // s3rver (AWS's algorithms only) refuses: one sentence naming the bucket.
        qunsetenv("CACHESCOPE_GCS_SIGNING");
        const std::string error = testsupport::errorOf([&] { openGcs(*fixture_, "cache", false); });
        qputenv("CACHESCOPE_GCS_SIGNING", "aws4");
        QVERIFY2(error.find("gs://cache") != std::string::npos, error.c_str());
        QVERIFY2(error.find("Unsupported Authorization Type") != std::string::npos, error.c_str());
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestActionsGcs)
#include "tst_actions_gcs.moc"
