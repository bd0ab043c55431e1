// Outputs of `store get` (Store::restoreToFile through cs::OutputFile):
// devices and FIFOs written in place, standard output carries the data and
// nothing else, no predictable temp name a planted link could redirect, the
// old output kept when a restore fails. Device nodes are made in a temp
// folder with /dev/null's numbers; the machine's /dev is never touched.
#include "common/OutputTargets.h"
#include "common/Pty.h"
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
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

// Every file and folder under dir (hidden ones too), relative, with its size.
QStringList treeOf(const QString& dir)
{
    QStringList names;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        names << QDir(dir).relativeFilePath(it.filePath()) + " " + QString::number(it.fileInfo().size());
    }
    names.sort();
    return names;
}

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
            const auto r = testsupport::cli({"store", "get", "--wait", f.dir, "k", fifo, "--threads", "4"});
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
            const auto r = testsupport::cli({"store", "get", "--wait", f.dir, "k", dev});
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
                                                QStringList{"store", "get", "--wait", f.dir, "k", name} + extra, {},
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
        const auto r = testsupport::cli({"store", "get", "--wait", f.dir, "k", f.out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("symbolic link"), r.err.constData());
        QCOMPARE(testsupport::readFile(victim), QByteArray("precious"));
        QVERIFY(QFileInfo(f.out).isSymLink());
    }

    // Ctrl-C on the terminal while `store get S K FIFO` waits for the FIFO's
    // first reader. Before: the open of the FIFO blocked, restarted by the
    // kernel after the signal (the CLI's handler has SA_RESTART): it waited
    // forever. Now: exit 130 (143 for SIGTERM) with one sentence, the FIFO
    // stays a FIFO, nothing new beside it, the store unchanged (the entry
    // still unmerged, no temp file, no pack append).
    void ctrlCWhileTheFifoHasNoReaderWritesNothing_data()
    {
        QTest::addColumn<bool>("ctrlC");
        QTest::newRow("Ctrl-C on the terminal") << true;
        QTest::newRow("SIGTERM") << false;
    }
    void ctrlCWhileTheFifoHasNoReaderWritesNothing()
    {
        QFETCH(bool, ctrlC);
        Fixture f;
        const QString fifo = f.tmp.filePath("o/fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        const QStringList storeBefore = treeOf(f.dir);
        testsupport::PtyProcess get({"store", "get", "--wait", f.dir, "k", fifo});
        QVERIFY(get.pid() > 0);
        const QString failed = get.interruptWhileRunning(ctrlC, 300);   // waiting for a reader
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(get.exitCode(), 128 + (ctrlC ? SIGINT : SIGTERM));
        const QByteArray sentence = "store get: interrupted by " + QByteArray(ctrlC ? "SIGINT (Ctrl-C)" : "SIGTERM")
                                    + " and cancelled; " + fifo.toLocal8Bit()
                                    + " (written in place) got only what was sent before the cancel";
        QVERIFY2(get.output().count(sentence) == 1, get.output().constData());
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
        QCOMPARE(namesIn(f.tmp.filePath("o")), QStringList{"fifo"});
        QCOMPARE(treeOf(f.dir), storeBefore);
        // And the entry is whole: a later get into a regular file restores it.
        const auto r = testsupport::cli({"store", "get", "--wait", f.dir, "k", f.out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(storetest::sha256Hex(testsupport::readFile(f.out)), storetest::sha256Hex(f.data));
    }

    // Ctrl-C while the FIFO's reader opened it but reads nothing (a stopped
    // pager): the pipe is full and the write waits, cancellably. The reader
    // got only what the pipe held, and the command says so.
    void ctrlCWhileTheFifoIsFullStops()
    {
        Fixture f;
        const QString fifo = f.tmp.filePath("o/fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        // The reader: opened (without waiting for a writer), never read
        // until the command ended.
        const int in = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        QVERIFY(in >= 0);
        testsupport::PtyProcess get({"store", "get", "--wait", f.dir, "k", fifo, "-q"});
        const QString failed = get.interruptWhileRunning(true, 500);   // the pipe is full
        QByteArray got;
        char buf[65536];
        for (ssize_t n; (n = ::read(in, buf, sizeof buf)) > 0;)
            got.append(buf, n);
        ::close(in);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(get.exitCode(), 128 + SIGINT);
        QVERIFY2(get.output().contains("store get: interrupted by SIGINT (Ctrl-C) and cancelled; " + fifo.toLocal8Bit()
                                       + " (written in place) got only what was sent before the cancel"),
                 get.output().constData());
        QVERIFY2(got.size() < f.data.size() && got == f.data.left(got.size()), qPrintable(QString::number(got.size())));
        QCOMPARE(namesIn(f.tmp.filePath("o")), QStringList{"fifo"});
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
        const auto r = testsupport::cli({"store", "get", "--wait", f.dir, "k", f.tmp.filePath("o/out")});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(testsupport::readFile(f.tmp.filePath("o/out")), QByteArray("old"));
        QCOMPARE(namesIn(f.tmp.filePath("o")), QStringList{"out"});
    }
};

QTEST_GUILESS_MAIN(TestStoreOutputs)
#include "tst_store_outputs.moc"
