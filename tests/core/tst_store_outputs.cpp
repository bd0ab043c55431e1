// Outputs of `store get` (Store::restoreToFile through cs::OutputFile):
// devices and FIFOs written in place, standard output carries the data and
// nothing else, no predictable temp name a planted link could redirect, the
// old output kept when a restore fails. Device nodes are made in a temp
// folder with /dev/null's numbers; the machine's /dev is never touched.
#include "common/OutputTargets.h"
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

#include <thread>

using namespace cs::store;

using testsupport::lstatOf;
using testsupport::makeNullDevice;
using testsupport::namesIn;
using testsupport::FifoReader;

namespace {

// A store with one unmerged entry "k" (3 MiB in 1 MiB parts) made by the CLI.
struct Fixture {
    QTemporaryDir tmp;
    QString dir, out;
    QByteArray data;
    Fixture()
    {
        dir = tmp.filePath("store");
        out = tmp.filePath("out");
        data = testsupport::randomBytes(3 << 20, 11);
        QDir().mkpath(tmp.filePath("o"));
        testsupport::writeFile(tmp.filePath("input"), data);
        testsupport::cli({"store", "init", dir});
        testsupport::cli({"store", "put", dir, "k", tmp.filePath("input"), "--no-merge", "--part-size", "1MiB"});
    }
};

} // namespace

class TestStoreOutputs : public QObject {
    Q_OBJECT
private slots:
    // The first get of an unmerged entry streams its parts (and merges);
    // the second decodes merged chunks. Both into a FIFO, in order.
    void getIntoFifoStreamsTheBytes()
    {
        Fixture f;
        for (int round = 0; round < 2; ++round) {
            const QString fifo = f.tmp.filePath("fifo");
            QVERIFY(round == 1 || ::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
            FifoReader reader(fifo);
            const auto r = testsupport::cli({"store", "get", f.dir, "k", fifo, "--threads", "4"});
            const QByteArray got = reader.take();
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(storetest::sha256Hex(got), storetest::sha256Hex(f.data));
            QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
        }
    }

    void getIntoCharDeviceKeepsIt()
    {
        Fixture f;
        const QString dev = f.tmp.filePath("o/null");
        QVERIFY(makeNullDevice(dev));
        for (int round = 0; round < 2; ++round) {   // unmerged, then merged
            const auto r = testsupport::cli({"store", "get", f.dir, "k", dev});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY(S_ISCHR(lstatOf(dev).st_mode));
            QCOMPARE(namesIn(f.tmp.filePath("o")), QStringList{"null"});
        }
    }

    // issue 9: `store get K /dev/stdout` put its summary line into the data.
    void getToStdoutCarriesOnlyTheData()
    {
        Fixture f;
        for (const char* name : {"-", "/dev/stdout"}) {
            for (const QStringList& extra : {QStringList{}, QStringList{"--json"}}) {
                const auto r = testsupport::run(QStringLiteral(CACHESCOPE_CLI),
                                                QStringList{"store", "get", f.dir, "k", name} + extra, {},
                                                f.tmp.filePath("o"));
                QVERIFY2(r.exitCode == 0, r.err.constData());
                QCOMPARE(r.out.size(), f.data.size());
                QVERIFY(r.out == f.data);
                QVERIFY2(r.err.contains("restored") || r.err.contains("matched_by"), r.err.constData());
                QVERIFY(namesIn(f.tmp.filePath("o")).isEmpty());   // no file named "-"
            }
        }
    }

    // issue 9: the temp name OUT.cachescope-tmp.PID.N was predictable; a
    // link planted there made root overwrite the link's 0600 target. Links
    // at every name the old scheme would use are left alone now.
    void plantedLinksAtOldTempNamesAreIgnored()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::randomBytes(200000, 12);
        storetest::upload(*store, "k", data, 50000, 2);
        const QString victim = tmp.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "secret"));
        QVERIFY(QFile::setPermissions(victim, QFile::ReadOwner | QFile::WriteOwner));
        QDir().mkpath(tmp.filePath("o"));
        const QString out = tmp.filePath("o/out");
        QStringList planted;
        for (int n = 0; n < 64; ++n) {
            planted << QStringLiteral("out.cachescope-tmp.%1.%2").arg(::getpid()).arg(n);
            QVERIFY(QFile::link(victim, tmp.filePath("o/" + planted.last())));
        }
        for (const char* name : {"out.tmp", "out.tmp-XXXXXX"}) {
            planted << name;
            QVERIFY(QFile::link(victim, tmp.filePath("o/" + planted.last())));
        }
        cs::Job job;
        job.start();
        for (int round = 0; round < 3; ++round) {   // unmerged, then merged, then again
            store->restoreToFile(storetest::request("k"), out.toStdString(), job);
            QCOMPARE(testsupport::readFile(out), data);
            QCOMPARE(testsupport::readFile(victim), QByteArray("secret"));
            if (round == 0)
                store->merge(store->findEntry("k", "", "")->id, job);
        }
        planted << "out";
        planted.sort();
        QCOMPARE(namesIn(tmp.filePath("o")), planted);
        QCOMPARE(lstatOf(victim).st_mode & 07777, mode_t(0600));
    }

    void getOntoLinkToFileIsRefused()
    {
        Fixture f;
        const QString victim = f.tmp.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "precious"));
        QVERIFY(QFile::link(victim, f.out));
        const auto r = testsupport::cli({"store", "get", f.dir, "k", f.out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("symbolic link"), r.err.constData());
        QCOMPARE(testsupport::readFile(victim), QByteArray("precious"));
        QVERIFY(QFileInfo(f.out).isSymLink());
    }

    // A restore that fails half way (a part is missing) keeps the old output
    // and leaves no temp file beside it.
    void failedGetLeavesTheOldOutput()
    {
        Fixture f;
        QVERIFY(testsupport::writeFile(f.tmp.filePath("o/out"), "old"));
        const QStringList partFolders = QDir(f.dir + "/parts").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(partFolders.size(), 1);
        QVERIFY(QFile::remove(f.dir + "/parts/" + partFolders.at(0) + "/2"));
        const auto r = testsupport::cli({"store", "get", f.dir, "k", f.tmp.filePath("o/out")});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(testsupport::readFile(f.tmp.filePath("o/out")), QByteArray("old"));
        QCOMPARE(namesIn(f.tmp.filePath("o")), QStringList{"out"});
    }
};

QTEST_GUILESS_MAIN(TestStoreOutputs)
#include "tst_store_outputs.moc"
