// `store put` from what cannot seek: standard input ("-", /dev/stdin of the
// child, which the test feeds through a pipe), a FIFO and character devices,
// all made by the test in a temp folder (device nodes get the numbers of
// /dev/null and /dev/zero; the machine's own /dev is only stat'ed). The input
// is streamed into parts as it arrives with one part in memory; an empty
// stream stores nothing (exit 1); endless input stops at --max-size (exit 1,
// nothing stored); a cancel stores nothing. What was streamed is checked
// byte for byte: `store get ... -` to standard output, SHA-256 compared with
// QCryptographicHash of the bytes sent.
#include "common/ChildRss.h"
#include "common/OutputTargets.h"
#include "common/Pty.h"
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>

using testsupport::FifoWriter;
using testsupport::lstatOf;

namespace {

// A character device node at path with the numbers of `model`.
bool makeDeviceLike(const char* model, const QString& path)
{
    struct stat st {};
    if (::stat(model, &st) != 0 || !S_ISCHR(st.st_mode))
        return false;
    return ::mknod(path.toLocal8Bit().constData(), S_IFCHR | 0666, st.st_rdev) == 0;
}

struct Fixture {
    QTemporaryDir tmp;
    QString dir;
    Fixture() : dir(tmp.filePath("store")) { testsupport::cli({"store", "init", dir}); }

    int entries() const
    {
        return int(QJsonDocument::fromJson(testsupport::cli({"store", "ls", dir, "--json"}).out).array().size());
    }
    int partFolders() const
    {
        return int(QDir(dir + "/parts").entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).size());
    }
    // Restored to standard output ("-"): only the data is there.
    QByteArray get(const QString& key) const
    {
        const auto r = testsupport::cli({"store", "get", "--wait", dir, key, "-"});
        return r.exitCode == 0 ? r.out : QByteArray("get failed: ") + r.err;
    }
};

} // namespace

class TestStoreStream : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { std::signal(SIGPIPE, SIG_IGN); }

    // issue 9: `cat file | store put S K /dev/stdin` stored 0 bytes, exit 0.
    void putFromStandardInput()
    {
        Fixture f;
        const QByteArray data = testsupport::randomBytes((3 << 20) + 12345, 21);
        for (const char* name : {"-", "/dev/stdin"}) {
            const QString key = QStringLiteral("stdin ") + name;
            const auto r = testsupport::cli({"store", "put", "--wait", f.dir, key, name, "--part-size", "1MiB"}, data);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(storetest::sha256Hex(f.get(key)), storetest::sha256Hex(data));
        }
        // Unmerged too: the parts are what was streamed, 4 of them.
        const auto r = testsupport::cli({"store", "put", f.dir, "raw", "-", "--part-size", "1MiB", "--no-merge", "--json"},
                                        data);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value("parts").toInt(), 4);
        QCOMPARE(o.value("state").toString(), QStringLiteral("unmerged"));
        QCOMPARE(o.value("sha256").toString().toStdString(), storetest::sha256Hex(data));
        QCOMPARE(storetest::sha256Hex(f.get("raw")), storetest::sha256Hex(data));
    }

    void putFromFifo()
    {
        Fixture f;
        const QByteArray data = testsupport::textBytes(2500000, 22);
        const QString fifo = f.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        testsupport::ProcessResult r;
        {
            FifoWriter writer(fifo, data);
            r = testsupport::cli({"store", "put", "--wait", f.dir, "k", fifo, "--part-size", "256KiB"});
        }
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(storetest::sha256Hex(f.get("k")), storetest::sha256Hex(data));
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));   // still a FIFO
    }

    // An empty stream stores nothing and says so; so does a /dev/null-like device.
    void emptyStreamStoresNothing()
    {
        Fixture f;
        const QString null = f.tmp.filePath("null");
        QVERIFY(makeDeviceLike("/dev/null", null));
        const auto fromStdin = testsupport::cli({"store", "put", "--wait", f.dir, "k", "-"}, QByteArray(""));
        QCOMPARE(fromStdin.exitCode, 1);
        QVERIFY2(fromStdin.err.contains("standard input: gave no bytes") && fromStdin.err.contains("nothing was stored"),
                 fromStdin.err.constData());
        QCOMPARE(fromStdin.err.count('\n'), 1);   // one sentence
        const auto fromDevice = testsupport::cli({"store", "put", "--wait", f.dir, "k", null});
        QCOMPARE(fromDevice.exitCode, 1);
        QVERIFY2(fromDevice.err.contains(null.toUtf8() + ": gave no bytes"), fromDevice.err.constData());
        QCOMPARE(f.entries(), 0);
        QCOMPARE(f.partFolders(), 0);
        QVERIFY(S_ISCHR(lstatOf(null).st_mode));
    }

    // Endless input (a /dev/zero-like device) stops at --max-size: exit 1,
    // nothing stored, no parts left; the device is still a device.
    void endlessInputStopsAtTheLimit()
    {
        Fixture f;
        const QString zero = f.tmp.filePath("zero");
        QVERIFY(makeDeviceLike("/dev/zero", zero));
        const auto r = testsupport::cli({"store", "put", "--wait", f.dir, "k", zero, "--max-size", "3MiB", "--part-size", "1MiB"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(zero.toUtf8()) && r.err.contains("--max-size") && r.err.contains("nothing was stored"),
                 r.err.constData());
        QCOMPARE(f.entries(), 0);
        QCOMPARE(f.partFolders(), 0);
        QVERIFY(S_ISCHR(lstatOf(zero).st_mode));
        // Exactly the limit is fine (from a pipe); one byte more is not.
        const QByteArray data = testsupport::randomBytes(3 << 20, 23);
        const auto ok = testsupport::cli({"store", "put", "--wait", f.dir, "k", "-", "--max-size", "3MiB"}, data);
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QCOMPARE(storetest::sha256Hex(f.get("k")), storetest::sha256Hex(data));
        const auto over = testsupport::cli({"store", "put", "--wait", f.dir, "k2", "-", "--max-size", "3MiB"}, data + "x");
        QCOMPARE(over.exitCode, 1);
        QCOMPARE(f.entries(), 1);
        QCOMPARE(f.partFolders(), 0);
        // A regular file is bounded only when asked.
        const QString file = f.tmp.filePath("file");
        QVERIFY(testsupport::writeFile(file, data + "x"));
        QCOMPARE(testsupport::cli({"store", "put", "--wait", f.dir, "k3", file, "--max-size", "3MiB"}).exitCode, 1);
        QCOMPARE(testsupport::cli({"store", "put", "--wait", f.dir, "k3", file}).exitCode, 0);
        QCOMPARE(storetest::sha256Hex(f.get("k3")), storetest::sha256Hex(data + "x"));
    }

    // Memory holds one part, whatever the stream's size: the child's peak
    // RSS for 64 MiB through a FIFO is within 16 MiB of its peak for 4 MiB
    // (the parts are 2 MiB; without streaming it would grow by 60 MiB).
    void memoryDoesNotGrowWithTheStream()
    {
        Fixture f;
        const QString fifo = f.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        long peak[2] = {0, 0};
        const qsizetype sizes[2] = {4 << 20, 64 << 20};
        std::string sha[2];
        for (int i = 0; i < 2; ++i) {
            const QString source = f.tmp.filePath(QString("source%1").arg(i));
            {
                // Written 1 MiB at a time, so this process stays small
                // (the child's peak is its own either way: ChildRss.h).
                QFile out(source);
                QVERIFY(out.open(QIODevice::WriteOnly));
                QCryptographicHash hash(QCryptographicHash::Sha256);
                for (qsizetype done = 0; done < sizes[i]; done += 1 << 20) {
                    const QByteArray block = testsupport::randomBytes(1 << 20, 24 + uint64_t(i) * 1000 + uint64_t(done));
                    QCOMPARE(out.write(block), qint64(block.size()));
                    hash.addData(block);
                }
                sha[i] = hash.result().toHex().toStdString();
            }
            testsupport::ChildRun run;
            {
                FifoWriter writer(fifo, {}, 0, source);
                run = testsupport::runMeasured(QStringLiteral(CACHESCOPE_CLI),
                                               {"store", "put", "--wait", f.dir, QString("k%1").arg(i), fifo, "--part-size",
                                                "2MiB", "--no-merge", "-q"},
                                               f.tmp.filePath("out"));
            }
            QCOMPARE(run.exitCode, 0);
            peak[i] = run.maxRssKiB;
        }
        qInfo("peak RSS: %ld KiB for 4 MiB, %ld KiB for 64 MiB", peak[0], peak[1]);
        QVERIFY2(peak[1] - peak[0] < 16 * 1024, qPrintable(QString("grew by %1 KiB").arg(peak[1] - peak[0])));
        QCOMPARE(storetest::sha256Hex(f.get("k0")), sha[0]);
        QCOMPARE(storetest::sha256Hex(f.get("k1")), sha[1]);
    }

    // Ctrl-C (SIGINT) while the stream pauses with no data: the put stops
    // within a moment, stores nothing and leaves no parts.
    void cancelWhileTheStreamWaitsStoresNothing()
    {
        Fixture f;
        const QString fifo = f.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        FifoWriter writer(fifo, testsupport::randomBytes(3 << 20, 25), 60000);   // then silent for 60 s
        QProcess p;
        p.start(QStringLiteral(CACHESCOPE_CLI), {"store", "put", "--wait", f.dir, "k", fifo, "--part-size", "1MiB", "-q"});
        QVERIFY(p.waitForStarted());
        QElapsedTimer t;
        t.start();
        while (writer.written() < (3 << 20) && t.elapsed() < 30000)
            QTest::qWait(20);
        QCOMPARE(writer.written(), qsizetype(3 << 20));
        // Its parts are being written: wait for the third one.
        while (t.elapsed() < 30000) {
            const QStringList ids = QDir(f.dir + "/parts").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
            if (!ids.isEmpty() && QDir(f.dir + "/parts/" + ids.first()).entryList(QDir::Files).size() >= 3)
                break;
            QTest::qWait(20);
        }
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY2(p.waitForFinished(10000), "put did not stop on SIGINT while its input was silent");
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + SIGINT);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("store put: interrupted by SIGINT (Ctrl-C) and cancelled; nothing was stored"), err.constData());
        QCOMPARE(f.entries(), 0);
        QCOMPARE(f.partFolders(), 0);
    }

    // Ctrl-C on the terminal while `store put S K FIFO` waits for the FIFO's
    // first writer. Before: the open of the FIFO blocked, and the kernel
    // restarted it after the signal (the handler has SA_RESTART): it waited
    // forever. Now it stops within 0.2 s: exit 130, one sentence, nothing
    // stored. SIGTERM the same way, exit 143.
    void ctrlCWhileTheFifoHasNoWriterStoresNothing_data()
    {
        QTest::addColumn<bool>("terminal");
        QTest::newRow("Ctrl-C on the terminal") << true;
        QTest::newRow("SIGTERM") << false;
    }
    void ctrlCWhileTheFifoHasNoWriterStoresNothing()
    {
        QFETCH(bool, terminal);
        Fixture f;
        const QString fifo = f.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        testsupport::PtyProcess put({"store", "put", "--wait", f.dir, "k", fifo});
        QVERIFY(put.pid() > 0);
        // Its handler is installed right before it opens the input: wait for
        // that (SigCgt in /proc), then give it time to reach the open.
        const QString failed = put.interruptWhileRunning(terminal, 300);   // waiting for a writer
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(put.exitCode(), 128 + (terminal ? SIGINT : SIGTERM));
        const QByteArray sentence = QByteArray("store put: interrupted by ") + (terminal ? "SIGINT (Ctrl-C)" : "SIGTERM")
                                    + " and cancelled; nothing was stored";
        QVERIFY2(put.output().count(sentence) == 1, put.output().constData());
        QCOMPARE(f.entries(), 0);
        QCOMPARE(f.partFolders(), 0);
    }
};

QTEST_GUILESS_MAIN(TestStoreStream)
#include "tst_store_stream.moc"
