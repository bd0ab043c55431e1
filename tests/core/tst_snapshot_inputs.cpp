// Inputs of `snapshot create` and `snapshot restore` that are not regular
// files (cs::InputFile), all FIFOs made by the test in a temp folder.
// create streams a FIFO or pipe (stock zstd checks what it wrote); restore
// reads frames at their offsets and refuses a FIFO or pipe at once. A FIFO
// with no writer, or a writer that stops sending, never holds a Ctrl-C.
#include "common/OutputTargets.h"
#include "common/Pty.h"
#include "common/TestSupport.h"

#include <QTemporaryDir>

#include <csignal>
#include <sys/stat.h>

using testsupport::FifoWriter;
using testsupport::lstatOf;
using testsupport::namesIn;

namespace {

struct Input {
    QTemporaryDir tmp;
    QString fifo, src, snap;
    QByteArray bytes = testsupport::textBytes(400000, 11) + testsupport::randomBytes(300000, 12);
    Input()
    {
        fifo = tmp.filePath("fifo");
        src = tmp.filePath("src");
        snap = tmp.filePath("src.zst");
        testsupport::writeFile(src, bytes);
        testsupport::cli({"snapshot", "create", src, snap, "--chunk", "64KiB"});
        ::mkfifo(fifo.toLocal8Bit().constData(), 0600);
    }
};

} // namespace

class TestSnapshotInputs : public QObject {
    Q_OBJECT
private slots:
    // A FIFO as SRC is read in order as it arrives; what lands in OUT is a
    // snapshot stock zstd decodes to exactly what the writer sent.
    void createReadsAFifo()
    {
        Input in;
        QVERIFY(S_ISFIFO(lstatOf(in.fifo).st_mode));
        const QString out = in.tmp.filePath("out.zst");
        testsupport::ProcessResult r;
        {
            FifoWriter writer(in.fifo, in.bytes);
            r = testsupport::cli({"snapshot", "create", in.fifo, out, "--chunk", "64KiB", "--threads", "3"});
        }
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto d = testsupport::zstd({"-d", "-c"}, testsupport::readFile(out));
        QCOMPARE(d.exitCode, 0);
        QVERIFY(d.out == in.bytes);
    }

    // Ctrl-C on the terminal (or SIGTERM) while `snapshot create FIFO OUT`
    // waits for the FIFO's first writer. Before: the open of the FIFO
    // blocked, restarted by the kernel after the signal (the CLI's handler
    // has SA_RESTART): it waited forever. Now: exit 130 (143) with one
    // sentence; OUT is not written (a new one does not appear, an old one
    // stays as it was), no temp file, the FIFO stays a FIFO.
    void ctrlCWhileTheInputFifoHasNoWriterWritesNothing_data()
    {
        QTest::addColumn<bool>("ctrlC");
        QTest::addColumn<bool>("oldOut");
        QTest::newRow("Ctrl-C, new OUT") << true << false;
        QTest::newRow("SIGTERM, new OUT") << false << false;
        QTest::newRow("Ctrl-C, old OUT") << true << true;
    }
    void ctrlCWhileTheInputFifoHasNoWriterWritesNothing()
    {
        QFETCH(bool, ctrlC);
        QFETCH(bool, oldOut);
        Input in;
        const QString out = in.tmp.filePath("out.zst");
        if (oldOut)
            QVERIFY(testsupport::writeFile(out, "old"));
        testsupport::PtyProcess cli({"snapshot", "create", in.fifo, out});
        QVERIFY(cli.pid() > 0);
        const QString failed = cli.interruptWhileRunning(ctrlC, 300);   // waiting for a writer
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(cli.exitCode(), 128 + (ctrlC ? SIGINT : SIGTERM));
        const QByteArray sentence = QByteArray("snapshot create: interrupted by ")
                                    + (ctrlC ? "SIGINT (Ctrl-C)" : "SIGTERM") + " and cancelled; " + out.toLocal8Bit()
                                    + (oldOut ? " was left as it was" : " was not written");
        QVERIFY2(cli.output().count(sentence) == 1, cli.output().constData());
        QVERIFY(S_ISFIFO(lstatOf(in.fifo).st_mode));
        QCOMPARE(namesIn(in.tmp.path()),
                 oldOut ? QStringList({"fifo", "out.zst", "src", "src.zst"}) : QStringList({"fifo", "src", "src.zst"}));
        if (oldOut)
            QCOMPARE(testsupport::readFile(out), QByteArray("old"));
    }

    // The writer came, sent part of the input and went silent (a stalled
    // producer): the read of the FIFO blocked, restarted after the signal,
    // so Ctrl-C did nothing. Now the read waits 100 ms at a time and sees
    // the cancel: exit 130, OUT not written.
    void ctrlCWhileTheInputStreamIsSilentWritesNothing()
    {
        Input in;
        const QString out = in.tmp.filePath("out.zst");
        FifoWriter writer(in.fifo, in.bytes.left(100000), 60000);   // then silent for 60 s
        testsupport::PtyProcess cli({"snapshot", "create", in.fifo, out, "--chunk", "64KiB"});
        QVERIFY(cli.pid() > 0);
        QVERIFY(cli.waitForHandler(SIGINT, 30000));
        // Wait until the CLI has taken what was sent: it is now in a read.
        for (int waited = 0; writer.written() < 100000 && waited < 30000; waited += 20)
            QTest::qWait(20);
        QCOMPARE(writer.written(), qsizetype(100000));
        const QString failed = cli.interruptWhileRunning(true, 300);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(cli.exitCode(), 128 + SIGINT);
        const QByteArray sentence = "snapshot create: interrupted by SIGINT (Ctrl-C) and cancelled; "
                                    + out.toLocal8Bit() + " was not written";
        QVERIFY2(cli.output().count(sentence) == 1, cli.output().constData());
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"fifo", "src", "src.zst"}));
    }

    // restore reads frames at their offsets: a FIFO (with no writer: before,
    // the open waited forever), or a pipe on standard input, is refused at
    // once with one sentence naming it; OUT is not created.
    void restoreRefusesAPipeAtOnce()
    {
        Input in;
        const QString out = in.tmp.filePath("out");
        testsupport::PtyProcess cli({"snapshot", "restore", in.fifo, out});
        QVERIFY(cli.pid() > 0);
        QVERIFY2(cli.waitForExit(30000), "snapshot restore waited on a FIFO with no writer");
        QCOMPARE(cli.exitCode(), 1);
        const QByteArray sentence = in.fifo.toLocal8Bit()
                                    + ": is a pipe (FIFO), not a regular file: restore reads frames at their offsets "
                                      "and needs a seekable file (save the stream to a file first)";
        QVERIFY2(cli.output().count(sentence) == 1 && cli.output().count('\n') == 1, cli.output().constData());
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"fifo", "src", "src.zst"}));

        // Standard input a pipe holding a valid snapshot: refused, not read as empty.
        const auto piped = testsupport::cli({"snapshot", "restore", "-", out}, testsupport::readFile(in.snap));
        QCOMPARE(piped.exitCode, 1);
        QVERIFY2(piped.err.contains("standard input: is a pipe (FIFO), not a regular file")
                     && piped.err.contains("needs a seekable file"),
                 piped.err.constData());
        QCOMPARE(namesIn(in.tmp.path()), (QStringList{"fifo", "src", "src.zst"}));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotInputs)
#include "tst_snapshot_inputs.moc"
