// Contents, diff and frames of entries on PostgreSQL + S3 (the real test
// servers, started here): the same archives, merged and as 1 MiB parts
// uploaded in reverse order, loaded by independent writers (SQL rows, plain
// PUTs), must read exactly as on the local data dir; and nothing changes:
// the PostgreSQL rows and the S3 listing with ETags are identical after.
#include "common/EntryArchives.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/RemoteBackends.h"
#include "core/entries/BlobFrameSource.h"
#include "core/entries/EntryDiff.h"
#include "core/jobs/Job.h"
#include "core/remote/PgConnection.h"
#include "core/remote/S3Client.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <map>

using namespace cs;
using namespace cs::entries;

namespace {

// path -> "type size mode link sha256" of every member.
std::map<std::string, std::string> listing(actions::ActionsCache& cache, const std::string& id, ContentsSummary* s)
{
    const auto e = cache.entry(id);
    if (!e)
        qFatal("no entry %s", id.c_str());
    EntryBlob blob(cache.storage(), *e);
    Job job;
    ContentsOptions o;
    o.hashMembers = true;
    std::map<std::string, std::string> out;
    *s = readContents(blob, o, job, [&](const Member& m) {
        out[m.path] = std::string(memberTypeName(m.type)) + " " + std::to_string(m.size) + " " +
                      std::to_string(m.mode) + " " + m.linkTarget + " " + (m.sha256 ? Sha256::hex(*m.sha256) : "");
    });
    return out;
}

} // namespace

class TestEntriesRemote : public QObject {
    Q_OBJECT
    testsupport::PgTestServer pg_;
    testsupport::S3TestServer s3server_;
    QTemporaryDir dir_;
    std::unique_ptr<testsupport::EntryDataDir> data_;
    std::string conninfo_;
    remote::S3Config s3_;

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
        QVERIFY2(s3server_.start({"cache"}, &why), qPrintable("cannot start the S3 test server: " + why));
        QVERIFY(dir_.isValid());
        QDir().mkpath(dir_.path() + "/v1");
        QDir().mkpath(dir_.path() + "/v2");
        testsupport::makeTree(dir_.path() + "/v1", 1);
        testsupport::makeTree(dir_.path() + "/v2", 2);
        const QByteArray tar1 = testsupport::makeTar(dir_.path() + "/v1");
        const QByteArray tar2 = testsupport::makeTar(dir_.path() + "/v2");
        testsupport::removeTree(dir_.path() + "/v1");
        testsupport::removeTree(dir_.path() + "/v2");
        data_ = std::make_unique<testsupport::EntryDataDir>(dir_.path() + "/data");
        const QByteArray long30 = testsupport::compress(tar1, "zstd -q -T0 --long=30");
        data_->add("long merged", long30, true);
        data_->add("long parts", long30, false);
        data_->add("gzip parts", testsupport::compress(tar1, "gzip"), false);
        data_->add("v2 parts", testsupport::compress(tar2, "zstd -q -T0"), false);

        auto admin = remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE entries");
        conninfo_ = pg_.conninfo("entries").toStdString();
        auto c = remote::PgConnection::connect(conninfo_);
        testsupport::loadRows(data_->dbPath(), *c);
        s3_.endpoint = s3server_.endpoint().toStdString();
        s3_.bucket = "cache";
        s3_.prefix = actions::kServerKeyPrefix;
        s3_.accessKeyId = testsupport::S3TestServer::accessKeyId().toStdString();
        s3_.secretAccessKey = testsupport::S3TestServer::secretAccessKey().toStdString();
        remote::S3Config loader = s3_;
        loader.prefix.clear();
        remote::S3Client s3(loader);
        testsupport::uploadStorage(s3, s3_.prefix, data_->storage());
    }

    void readsAsTheDataDirAndChangesNothing()
    {
        auto pg = remote::PgConnection::connect(conninfo_);
        remote::S3Config all = s3_;
        all.prefix.clear();
        remote::S3Client s3(all);
        const std::string rowsBefore = testsupport::dumpServerRows(*pg), objectsBefore = testsupport::listBucket(s3);
        QVERIFY(objectsBefore.find("/parts/2 ") != std::string::npos);

        auto local = actions::ActionsCache::open(actions::resolveDataDir(data_->dataDir().toStdString()));
        actions::ActionsCache remote(actions::openPostgresCatalog(conninfo_, false), actions::openS3Storage(s3_));
        for (const auto& e : data_->entries()) {
            ContentsSummary ls, rs;
            const auto want = listing(*local, e.id.toStdString(), &ls);
            const auto got = listing(remote, e.id.toStdString(), &rs);
            QVERIFY2(want.size() > 10, qPrintable(e.key));
            QCOMPARE(got, want);
            QCOMPARE(rs.format, ls.format);
            QCOMPARE(rs.blobBytes, ls.blobBytes);
            // The frame layout straight from S3 (ranged GETs), as from the files.
            const auto re = remote.entry(e.id.toStdString());
            const auto le = local->entry(e.id.toStdString());
            EntryBlob rb(remote.storage(), *re), lb(local->storage(), *le);
            BlobFrameSource rsrc(rb), lsrc(lb);
            Job j1, j2;
            if (ls.format == BlobFormat::TarZstd) {
                const auto rl = scanFrames(rsrc, "r", {}, j1), ll = scanFrames(lsrc, "l", {}, j2);
                QCOMPARE(rl.frames.size(), ll.frames.size());
                QCOMPARE(rl.summary.compressedSize, ll.summary.compressedSize);
                QCOMPARE(rl.summary.parallel.reason, ll.summary.parallel.reason);
            }
        }
        // A diff across two remote entries.
        const auto a = remote.entry(data_->entries()[1].id.toStdString());
        const auto b = remote.entry(data_->entries()[3].id.toStdString());
        EntryBlob ba(remote.storage(), *a), bb(remote.storage(), *b);
        Job job;
        const EntryDiff d = diffEntries(ba, bb, {}, job);
        QCOMPARE(d.bytesAdded, uint64_t(80000));
        QCOMPARE(d.bytesRemoved, uint64_t(5000));

        // The CLI with the usual flags.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("AWS_ACCESS_KEY_ID", testsupport::S3TestServer::accessKeyId());
        env.insert("AWS_SECRET_ACCESS_KEY", testsupport::S3TestServer::secretAccessKey());
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(CACHESCOPE_CLI, {"actions-cache", "contents", data_->entries()[1].id, "--json", "-q", "--db",
                                 pg_.url("entries"), "--storage", "s3://cache/" + QString(actions::kServerKeyPrefix),
                                 "--endpoint", s3server_.endpoint()});
        QVERIFY(p.waitForFinished(600000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(o["format"].toString(), QString("tar+zstd"));
        QCOMPARE(o["entry"].toString(), data_->entries()[1].id);

        QCOMPARE(testsupport::dumpServerRows(*pg), rowsBefore);
        QCOMPARE(testsupport::listBucket(s3), objectsBefore);
    }
};

QTEST_GUILESS_MAIN(TestEntriesRemote)
#include "tst_entries_remote.moc"
