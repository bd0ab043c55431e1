// `store get` of an unmerged entry and `store put` return once the output
// (or the commit) is safe; the merge finishes behind them in a process of
// their own (app/cli/Handover.h, Store.h "Background merges"). Checked end to
// end through the CLI: the output is complete and byte-exact when the command
// returns while the entry is still unmerged (the merge is held at a named
// point with SIGSTOP); the entry merges later and a second get reads the
// pack; --wait keeps the old behaviour; a killed background merge loses
// nothing; a failed one leaves its sentence in the row; gc, evict, fsck and
// a second get beside a running background merge all give right results;
// Ctrl-C during the delivery leaves no output and no half-merged entry.
#include "common/Pty.h"
#include "common/SmallDisk.h"
#include "common/TestSupport.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using testsupport::ProcessResult;

// The CLI with extra environment variables.
ProcessResult cliWith(const QStringList& args, const QStringList& env, const QByteArray& input = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env)
        e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(CACHESCOPE_CLI), args);
    if (!p.waitForStarted(30000))
        return {-1, {}, "could not start the CLI"};
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(600000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// Processes that hold a file open (as /proc shows it): the background merge.
QList<pid_t> holdersOf(const QString& path)
{
    const QString target = QFileInfo(path).canonicalFilePath();
    QList<pid_t> pids;
    if (target.isEmpty())
        return pids;   // no such file: nobody holds it
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        bool ok = false;
        const int n = pid.toInt(&ok);
        if (!ok || n == int(::getpid()))
            continue;
        QDirIterator fds("/proc/" + pid + "/fd", QDir::System | QDir::Files);
        while (fds.hasNext()) {
            fds.next();
            if (QFileInfo(fds.filePath()).symLinkTarget() == target) {
                pids << pid_t(n);
                break;
            }
        }
    }
    return pids;
}

// Waits until a process stopped itself (state T), up to 30 s.
bool waitStopped(pid_t pid)
{
    for (int i = 0; i < 3000; ++i) {
        QFile f(QString("/proc/%1/stat").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            return false;
        const QByteArray stat = f.readAll();
        const qsizetype close = stat.lastIndexOf(')');
        if (close > 0 && stat.mid(close + 2, 1) == "T")
            return true;
        ::usleep(10000);
    }
    return false;
}

QJsonObject onlyEntry(const QString& dir)
{
    const auto ls = testsupport::cli({"store", "ls", dir, "--json"});
    const QJsonArray rows = QJsonDocument::fromJson(ls.out).array();
    return rows.size() == 1 ? rows[0].toObject() : QJsonObject{};
}

struct Fixture {
    QTemporaryDir tmp;
    QString dir = tmp.filePath("store");
    QString input = tmp.filePath("input");
    QString out = tmp.filePath("out");
    QByteArray bytes = testsupport::randomBytes(3 << 20, 27) + testsupport::textBytes(2 << 20, 27);

    // An unmerged entry "k" of 20 parts.
    bool withUnmergedEntry()
    {
        return testsupport::writeFile(input, bytes) && testsupport::cli({"store", "init", dir}).exitCode == 0
               && testsupport::cli({"store", "put", dir, "k", input, "--no-merge", "--part-size", "256KiB"}).exitCode == 0;
    }
    QString lock() const { return dir + "/merges.lock"; }
};

} // namespace

class StoreBackgroundTest : public QObject {
    Q_OBJECT

private slots:
    // The output is complete when get returns; the entry is still unmerged
    // (its merge held before its commit), merges once let go, and a second
    // get reads the pack.
    void getReturnsWithTheFileBeforeTheMergeCommits()
    {
        Fixture f;
        QVERIFY(f.withUnmergedEntry());
        const auto get = cliWith({"store", "get", f.dir, "k", f.out, "--json"},
                                 {"CACHESCOPE_STORE_KILL_AT=stop:merge appended"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QVERIFY(QJsonDocument::fromJson(get.out).object()["merging_in_background"].toBool());
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));

        const QList<pid_t> merging = holdersOf(f.lock());
        QCOMPARE(merging.size(), 1);
        QVERIFY(waitStopped(merging[0]));
        const QJsonObject held = onlyEntry(f.dir);
        QCOMPARE(held["state"].toString(), QStringLiteral("unmerged"));
        QVERIFY(held["merging"].toBool());
        QVERIFY(QDir(f.dir + "/parts/" + QString::number(held["id"].toInt())).exists());
        const auto stats = testsupport::cli({"store", "stats", f.dir, "--json"});
        QVERIFY(QJsonDocument::fromJson(stats.out).object()["background_merges"].toBool());

        ::kill(merging[0], SIGCONT);
        const auto wait = testsupport::cli({"store", "merge", f.dir, "--wait-background"});
        QVERIFY2(wait.exitCode == 0, wait.err.constData());
        QVERIFY(holdersOf(f.lock()).isEmpty());
        const QJsonObject merged = onlyEntry(f.dir);
        QCOMPARE(merged["state"].toString(), QStringLiteral("merged"));
        QVERIFY(!merged["merging"].toBool());
        QVERIFY(merged["merge_error"].isNull());
        QVERIFY(!QDir(f.dir + "/parts/" + QString::number(merged["id"].toInt())).exists());

        QFile::remove(f.out);
        const auto again = testsupport::cli({"store", "get", f.dir, "k", f.out, "--json"});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(again.out).object();
        QCOMPARE(o["state"].toString(), QStringLiteral("merged"));
        QVERIFY(!o["merging_in_background"].toBool());
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
        QCOMPARE(testsupport::cli({"store", "fsck", f.dir}).exitCode, 0);
    }

    // put returns once the parts and the row are committed; the merge follows.
    void putReturnsOnceCommitted()
    {
        Fixture f;
        QVERIFY(testsupport::writeFile(f.input, f.bytes));
        QCOMPARE(testsupport::cli({"store", "init", f.dir}).exitCode, 0);
        const auto put = cliWith({"store", "put", f.dir, "k", f.input, "--json"},
                                 {"CACHESCOPE_STORE_KILL_AT=stop:merge appended"});
        QVERIFY2(put.exitCode == 0, put.err.constData());
        const QJsonObject said = QJsonDocument::fromJson(put.out).object();
        QVERIFY(said["merging_in_background"].toBool());
        QCOMPARE(said["state"].toString(), QStringLiteral("unmerged"));
        const QList<pid_t> merging = holdersOf(f.lock());
        QCOMPARE(merging.size(), 1);
        QVERIFY(waitStopped(merging[0]));
        QJsonObject e = onlyEntry(f.dir);
        QCOMPARE(e["state"].toString(), QStringLiteral("unmerged"));
        QCOMPARE(e["parts"].toInt(), 5);   // 5 MiB in 1 MiB parts
        QCOMPARE(e["sha256"].toString().toStdString(), testsupport::sha256OfFile(f.input));

        ::kill(merging[0], SIGCONT);
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        e = onlyEntry(f.dir);
        QCOMPARE(e["state"].toString(), QStringLiteral("merged"));
        QCOMPARE(testsupport::cli({"store", "get", f.dir, "k", f.out}).exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
    }

    void waitKeepsTheOldBehaviour()
    {
        Fixture f;
        QVERIFY(f.withUnmergedEntry());
        const auto get = testsupport::cli({"store", "get", f.dir, "k", f.out, "--wait", "--json"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QVERIFY(QJsonDocument::fromJson(get.out).object()["merged_now"].toBool());
        QCOMPARE(onlyEntry(f.dir)["state"].toString(), QStringLiteral("merged"));
        QVERIFY(holdersOf(f.lock()).isEmpty());

        const auto put = testsupport::cli({"store", "put", f.dir, "k2", f.input, "--wait", "--json"});
        QVERIFY2(put.exitCode == 0, put.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(put.out).object();
        QCOMPARE(o["state"].toString(), QStringLiteral("merged"));
        QCOMPARE(o["parts"].toInt(), 0);   // one pass straight into the pack
        QVERIFY(!o["merging_in_background"].toBool());
    }

    // kill -9 of the background merge at its named points: nothing lost.
    void killedBackgroundMergeLosesNothing_data()
    {
        QTest::addColumn<QString>("point");
        QTest::newRow("merge appended") << "merge appended";
        QTest::newRow("merge remove") << "merge remove";
        QTest::newRow("part removed") << "part removed:3";
    }
    void killedBackgroundMergeLosesNothing()
    {
        QFETCH(QString, point);
        Fixture f;
        QVERIFY(f.withUnmergedEntry());
        const auto get = cliWith({"store", "get", f.dir, "k", f.out}, {"CACHESCOPE_STORE_KILL_AT=" + point});
        QVERIFY2(get.exitCode == 0, get.err.constData());   // released before the kill
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        QFile::remove(f.out);
        const auto again = testsupport::cli({"store", "get", f.dir, "k", f.out, "--wait"});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
        QCOMPARE(onlyEntry(f.dir)["state"].toString(), QStringLiteral("merged"));
        QCOMPARE(testsupport::cli({"store", "fsck", f.dir, "--repair"}).exitCode, 0);
        const auto fsck = testsupport::cli({"store", "fsck", f.dir});
        QVERIFY2(fsck.exitCode == 0, fsck.out.constData());
    }

    // kill -9 of a put once its parts are all written, before their one
    // sync and the commit (parts are no longer fsynced one by one): the
    // upload is not committed, the old entry is still the one listed and
    // restored, and the store fscks clean.
    void killedPutBeforeItsCommitKeepsTheOldEntry_data()
    {
        QTest::addColumn<QStringList>("how");
        QTest::newRow("file, merge behind") << QStringList{};
        QTest::newRow("file, --no-merge") << QStringList{"--no-merge"};
        QTest::newRow("stream") << QStringList{"-"};
    }
    void killedPutBeforeItsCommitKeepsTheOldEntry()
    {
        QFETCH(QStringList, how);
        Fixture f;
        QVERIFY(f.withUnmergedEntry());
        const std::string old = testsupport::sha256OfFile(f.input);
        const QByteArray other = testsupport::randomBytes(3 << 20, 28);
        const QString otherFile = f.tmp.filePath("other");
        QVERIFY(testsupport::writeFile(otherFile, other));
        const bool stream = how == QStringList{"-"};
        QStringList args{"store", "put", f.dir, "k", stream ? QStringLiteral("-") : otherFile};
        if (!stream)
            args += how;
        const auto put = cliWith(args, {"CACHESCOPE_STORE_KILL_AT=parts written"}, stream ? other : QByteArray());
        QVERIFY2(put.exitCode != 0, put.out.constData());
        QVERIFY(holdersOf(f.lock()).isEmpty());
        // The old entry, and the killed upload's row still 'uploading'.
        const QJsonArray rows = QJsonDocument::fromJson(testsupport::cli({"store", "ls", f.dir, "--json"}).out).array();
        QCOMPARE(rows.size(), 2);
        QJsonObject e;
        for (const auto& r : rows) {
            if (r.toObject()["state"].toString() == QLatin1String("uploading"))
                QCOMPARE(r.toObject()["size"].toInt(), 0);
            else
                e = r.toObject();
        }
        QCOMPARE(e["sha256"].toString().toStdString(), old);
        QCOMPARE(e["state"].toString(), QStringLiteral("unmerged"));
        const auto fsck = testsupport::cli({"store", "fsck", f.dir});
        QVERIFY2(fsck.exitCode == 0, fsck.out.constData());
        const auto get = testsupport::cli({"store", "get", f.dir, "k", f.out, "--wait"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QCOMPARE(testsupport::sha256OfFile(f.out), old);
        // Without the kill point the same put commits the new bytes.
        QFile::remove(f.out);
        const auto again = cliWith(args, {}, stream ? other : QByteArray());
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "get", f.dir, "k", f.out, "--wait"}).exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(otherFile));
    }

    // A merge that fails behind the command keeps its sentence in the row.
    void failedBackgroundMergeIsRecorded()
    {
        testsupport::SmallDisk disk("8m");
        QVERIFY2(disk.mounted, disk.error.c_str());
        Fixture f;
        f.dir = disk.path + "/store";
        f.bytes = testsupport::randomBytes(3 << 20, 5);
        QVERIFY(f.withUnmergedEntry());
        disk.fill();   // the merge cannot append
        const auto get = testsupport::cli({"store", "get", f.dir, "k", f.out});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        const QJsonObject e = onlyEntry(f.dir);
        QCOMPARE(e["state"].toString(), QStringLiteral("unmerged"));
        QVERIFY2(e["merge_error"].toString().contains("No space left"), qPrintable(e["merge_error"].toString()));
        const auto stats = testsupport::cli({"store", "stats", f.dir, "--json"});
        QCOMPARE(QJsonDocument::fromJson(stats.out).object()["failed_merges"].toInt(), 1);
        const auto human = testsupport::cli({"store", "ls", f.dir});
        QVERIFY2(human.out.contains("unmerged!"), human.out.constData());

        // In the foreground too: the file is what was asked for, the failed
        // merge a warning (exit 1 before, although OUT was complete).
        QFile::remove(f.out);
        const auto waited = testsupport::cli({"store", "get", f.dir, "k", f.out, "--wait"});
        QVERIFY2(waited.exitCode == 0, waited.err.constData());
        QVERIFY2(waited.err.contains("warning:") && waited.err.contains("merging it failed"), waited.err.constData());
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
        QCOMPARE(onlyEntry(f.dir)["state"].toString(), QStringLiteral("unmerged"));
    }

    // gc, evict, fsck and a second get beside a background merge held
    // before its commit: every result right, no spurious failure.
    void besideOtherCommands()
    {
        Fixture f;
        QVERIFY(f.withUnmergedEntry());
        QVERIFY(testsupport::writeFile(f.tmp.filePath("other"), testsupport::textBytes(1 << 20, 3)));
        QCOMPARE(testsupport::cli({"store", "put", f.dir, "other", f.tmp.filePath("other"), "--wait"}).exitCode, 0);
        const auto get = cliWith({"store", "get", f.dir, "k", f.out}, {"CACHESCOPE_STORE_KILL_AT=stop:merge appended"});
        QVERIFY2(get.exitCode == 0, get.err.constData());
        const QList<pid_t> merging = holdersOf(f.lock());
        QCOMPARE(merging.size(), 1);
        QVERIFY(waitStopped(merging[0]));

        const auto fsck = testsupport::cli({"store", "fsck", f.dir});
        QVERIFY2(fsck.exitCode == 0, fsck.out.constData());
        // A second get streams the parts beside the merge instead of waiting for it.
        const QString second = f.tmp.filePath("second");
        const auto get2 = testsupport::cli({"store", "get", f.dir, "k", second, "--wait"});
        QVERIFY2(get2.exitCode == 0, get2.err.constData());
        QCOMPARE(testsupport::sha256OfFile(second), testsupport::sha256OfFile(f.input));
        const auto gc = testsupport::cli({"store", "gc", f.dir});
        QVERIFY2(gc.exitCode == 0, gc.err.constData());

        ::kill(merging[0], SIGCONT);   // the GC moved the epoch: the merge redoes itself
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        QFile::remove(f.out);
        QCOMPARE(testsupport::cli({"store", "get", f.dir, "k", f.out}).exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
        const auto ls = testsupport::cli({"store", "ls", f.dir, "--json"});
        for (const auto& row : QJsonDocument::fromJson(ls.out).array())
            QCOMPARE(row.toObject()["state"].toString(), QStringLiteral("merged"));
        const auto fsck2 = testsupport::cli({"store", "fsck", f.dir});
        QVERIFY2(fsck2.exitCode == 0, fsck2.out.constData());

        // Evict of an entry whose background merge is held: the merge gives up.
        Fixture g;
        QVERIFY(g.withUnmergedEntry());
        const auto get3 = cliWith({"store", "get", g.dir, "k", g.out}, {"CACHESCOPE_STORE_KILL_AT=stop:merge appended"});
        QVERIFY2(get3.exitCode == 0, get3.err.constData());
        const QList<pid_t> held = holdersOf(g.lock());
        QCOMPARE(held.size(), 1);
        QVERIFY(waitStopped(held[0]));
        const auto evict = testsupport::cli({"store", "evict", g.dir, "--key", "k", "--json"});
        QVERIFY2(evict.exitCode == 0, evict.err.constData());
        QCOMPARE(QJsonDocument::fromJson(evict.out).object()["entries"].toArray().size(), 1);
        ::kill(held[0], SIGCONT);
        QCOMPARE(testsupport::cli({"store", "merge", g.dir, "--wait-background"}).exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(testsupport::cli({"store", "ls", g.dir, "--json"}).out).array().size(), 0);
        QCOMPARE(testsupport::cli({"store", "gc", g.dir}).exitCode, 0);
        const auto fsck3 = testsupport::cli({"store", "fsck", g.dir});
        QVERIFY2(fsck3.exitCode == 0, fsck3.out.constData());
    }

    // Ctrl-C while the output waits for a reader: no output, no merge left.
    void ctrlCDuringDeliveryLeavesNothing()
    {
        Fixture f;
        QVERIFY(f.withUnmergedEntry());
        const QString fifo = f.tmp.filePath("fifo");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        testsupport::PtyProcess get({"store", "get", f.dir, "k", fifo});
        QVERIFY(get.pid() > 0);
        const QString failed = get.interruptWhileRunning(true, 500);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(get.exitCode(), 128 + SIGINT);
        QVERIFY2(get.output().count("interrupted by SIGINT (Ctrl-C) and cancelled") == 1, get.output().constData());
        QVERIFY(holdersOf(f.lock()).isEmpty());
        const QJsonObject e = onlyEntry(f.dir);
        QCOMPARE(e["state"].toString(), QStringLiteral("unmerged"));
        QVERIFY(!e["merging"].toBool());
        QVERIFY(e["merge_error"].isNull());

        // Into a regular file: the temp file goes with the cancel.
        testsupport::PtyProcess get2({"store", "get", f.dir, "k", f.out});
        get2.waitForExit(60000);
        QCOMPARE(get2.exitCode(), 0);
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        QCOMPARE(onlyEntry(f.dir)["state"].toString(), QStringLiteral("merged"));
        QCOMPARE(testsupport::sha256OfFile(f.out), testsupport::sha256OfFile(f.input));
    }
};

QTEST_GUILESS_MAIN(StoreBackgroundTest)
#include "tst_store_background.moc"
