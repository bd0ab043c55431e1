// Outputs of `snapshot create` and `snapshot restore` (cs::OutputFile):
// device nodes and FIFOs are written in place and stay what they are,
// standard output gets the data and nothing else, a failed run leaves the
// old output and no temp file. Stock zstd checks what lands in a FIFO.
// Device nodes are made in a temp folder with /dev/null's numbers.
#include "common/OutputTargets.h"
#include "common/Pty.h"
#include "common/SmallDisk.h"
#include "common/TestSupport.h"

#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <thread>

using testsupport::lstatOf;
using testsupport::makeNullDevice;
using testsupport::namesIn;
using testsupport::FifoReader;

namespace {

// An input of several frames (1 KiB chunk would make too many: 64 KiB) with
// a hole in the middle, and its snapshot.
struct Input {
    QTemporaryDir tmp;
    QString src, snap;
    QByteArray bytes;
    Input()
    {
        src = tmp.filePath("src");
        snap = tmp.filePath("src.zst");
        const QByteArray head = testsupport::textBytes(300000, 7), tail = testsupport::randomBytes(200000, 8);
        QFile f(src);
        if (f.open(QIODevice::WriteOnly)) {
            f.write(head);
            f.seek(head.size() + (4 << 20));   // a 4 MiB hole
            f.write(tail);
        }
        f.close();
        bytes = testsupport::readFile(src);
        testsupport::cli({"snapshot", "create", src, snap, "--chunk", "64KiB", "--threads", "3"});
    }
};

} // namespace

class TestSnapshotOutputs : public QObject {
    Q_OBJECT
private slots:
    // issue 9: restore onto a device node replaced it with a regular file.
    void restoreIntoCharDeviceKeepsIt()
    {
        Input in;
        QVERIFY(QFileInfo::exists(in.snap));
        const QString dev = in.tmp.filePath("null");
        QVERIFY(makeNullDevice(dev));
        const auto r = testsupport::cli({"snapshot", "restore", in.snap, dev, "--threads", "4"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(S_ISCHR(lstatOf(dev).st_mode));
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"null", "src", "src.zst"}));
    }

    void createIntoCharDeviceKeepsIt()
    {
        Input in;
        const QString dev = in.tmp.filePath("null");
        QVERIFY(makeNullDevice(dev));
        const auto r = testsupport::cli({"snapshot", "create", in.src, dev, "--threads", "2"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(S_ISCHR(lstatOf(dev).st_mode));
    }

    // A FIFO cannot seek: frames decoded in order, holes written as zeros;
    // the reader gets exactly the input.
    void restoreIntoFifoStreamsInOrder()
    {
        Input in;
        const QString fifo = in.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        FifoReader reader(fifo);
        const auto r = testsupport::cli({"snapshot", "restore", in.snap, fifo, "--threads", "4", "--json"});
        const QByteArray got = reader.take();
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(got.size(), in.bytes.size());
        QVERIFY(got == in.bytes);
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
    }

    // What `snapshot create` streams into a FIFO is a snapshot stock zstd decodes.
    void createIntoFifoIsDecodableByZstd()
    {
        Input in;
        const QString fifo = in.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        FifoReader reader(fifo);
        const auto r = testsupport::cli({"snapshot", "create", in.src, fifo, "--chunk", "64KiB", "--threads", "3"});
        const QByteArray snap = reader.take();
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto d = testsupport::zstd({"-d", "-c"}, snap);
        QCOMPARE(d.exitCode, 0);
        QVERIFY(d.out == in.bytes);
    }

    // "-" is standard output (never /dev/stdout here: a build that replaced it
// instead of writing into it would break the machine): the data and nothing else there (the summary
    // goes to standard error), and no file named "-" appears.
    void restoreToStdoutCarriesOnlyTheData()
    {
        Input in;
        for (const QStringList& extra : {QStringList{}, QStringList{"--json"}}) {
            const auto r = testsupport::run(QStringLiteral(CACHESCOPE_CLI),
                                            QStringList{"snapshot", "restore", in.snap, "-"} + extra, {}, in.tmp.path());
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(r.out.size(), in.bytes.size());
            QVERIFY(r.out == in.bytes);
            QVERIFY(r.err.contains("src.zst"));
            QVERIFY(!QFileInfo::exists(in.tmp.filePath("-")));
        }
    }

    void createToStdoutCarriesOnlyTheData()
    {
        Input in;
        const auto r = testsupport::run(QStringLiteral(CACHESCOPE_CLI),
                                        {"snapshot", "create", in.src, "-", "--chunk", "64KiB"}, {},
                                        in.tmp.path());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!QFileInfo::exists(in.tmp.filePath("-")));
        const auto d = testsupport::zstd({"-d", "-c"}, r.out);
        QCOMPARE(d.exitCode, 0);
        QVERIFY(d.out == in.bytes);
    }

    // A link as OUT to a regular file is refused; neither changes.
    void restoreOntoLinkToFileIsRefused()
    {
        Input in;
        const QString victim = in.tmp.filePath("victim");
        QVERIFY(testsupport::writeFile(victim, "precious"));
        QVERIFY(QFile::link(victim, in.tmp.filePath("out")));
        const auto r = testsupport::cli({"snapshot", "restore", in.snap, in.tmp.filePath("out")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("symbolic link"), r.err.constData());
        QCOMPARE(testsupport::readFile(victim), QByteArray("precious"));
        QVERIFY(QFileInfo(in.tmp.filePath("out")).isSymLink());
    }

    // A restore whose output disk fills up while several threads write their
    // frames (SerialWrites): exit 1, one error naming the output and the
    // cause, no temp file left on the disk.
    void restoreOntoAFullDiskFailsCleanly()
    {
        Input in;
        testsupport::SmallDisk disk("256k");
        QVERIFY2(disk.mounted, disk.error.c_str());
        const QString out = disk.path + "/out";
        const auto r = testsupport::cli({"snapshot", "restore", in.snap, out, "--threads", "4"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(out.toUtf8()) && r.err.contains("No space left on device"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QCOMPARE(namesIn(disk.path), QStringList());
    }

    // Ctrl-C on the terminal (or SIGTERM) while `snapshot restore SNAP FIFO`
    // or `snapshot create SRC FIFO` waits for the FIFO's first reader.
    // Before: the open blocked, restarted by the kernel after the signal (the
    // CLI's handler has SA_RESTART): it waited forever. Now: exit 130 (143)
    // with one sentence; the FIFO stays a FIFO, no temp file anywhere.
    void ctrlCWhileTheFifoHasNoReaderWritesNothing_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("ctrlC");
        QTest::newRow("restore, Ctrl-C") << QString("restore") << true;
        QTest::newRow("restore, SIGTERM") << QString("restore") << false;
        QTest::newRow("create, Ctrl-C") << QString("create") << true;
        QTest::newRow("create, SIGTERM") << QString("create") << false;
    }
    void ctrlCWhileTheFifoHasNoReaderWritesNothing()
    {
        QFETCH(QString, command);
        QFETCH(bool, ctrlC);
        Input in;
        const QString fifo = in.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        testsupport::PtyProcess cli({"snapshot", command, command == "restore" ? in.snap : in.src, fifo});
        QVERIFY(cli.pid() > 0);
        const QString failed = cli.interruptWhileRunning(ctrlC, 300);   // waiting for a reader
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(cli.exitCode(), 128 + (ctrlC ? SIGINT : SIGTERM));
        const QByteArray sentence = "snapshot " + command.toLocal8Bit() + ": interrupted by "
                                    + (ctrlC ? "SIGINT (Ctrl-C)" : "SIGTERM") + " and cancelled; " + fifo.toLocal8Bit()
                                    + " (written in place) got only what was sent before the cancel";
        QVERIFY2(cli.output().count(sentence) == 1, cli.output().constData());
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"fifo", "src", "src.zst"}));
        // A reader that comes later gets the whole output: the FIFO is fine.
        FifoReader reader(fifo);
        const auto r = testsupport::cli({"snapshot", "restore", in.snap, fifo});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(reader.take() == in.bytes);
    }

    // A failing restore (a frame damaged after the header pass could see it)
    // leaves the old output and no temp file; so does a cancel.
    void failedRestoreLeavesTheOldOutput()
    {
        Input in;
        QByteArray snap = testsupport::readFile(in.snap);
        snap[snap.size() / 2] = char(snap[snap.size() / 2] ^ 0x55);
        snap[snap.size() / 2 + 1] = char(snap[snap.size() / 2 + 1] ^ 0x55);
        const QString bad = in.tmp.filePath("bad.zst");
        QVERIFY(testsupport::writeFile(bad, snap));
        const QString out = in.tmp.filePath("out");
        QVERIFY(testsupport::writeFile(out, "old"));
        const auto r = testsupport::cli({"snapshot", "restore", bad, out, "--threads", "4"});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(testsupport::readFile(out), QByteArray("old"));
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"bad.zst", "out", "src", "src.zst"}));

        cs::Job job;
        job.start();
        job.cancel();
        cs::SnapshotRestoreOptions o;
        bool cancelled = false;
        try {
            cs::restoreSnapshot(in.snap.toStdString(), out.toStdString(), o, job);
        } catch (const cs::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(testsupport::readFile(out), QByteArray("old"));
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"bad.zst", "out", "src", "src.zst"}));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotOutputs)
#include "tst_snapshot_outputs.moc"
