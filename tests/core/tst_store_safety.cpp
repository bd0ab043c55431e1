// The store's own files are never written behind its back (issue 22): an
// output named inside an open store is refused whatever its spelling
// (`S/pack/0.suffix`, `S/catalog.db`, through `..`, through a link to the
// store), writes refuse a store file with a second hard link while reads go
// on, a running upload is never evicted whatever the policy, and a `store
// get` whose output is complete exits 0 and warns when the merge behind it
// failed. Each case is checked against the files' SHA-256 and the restored
// bytes.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

#include <unistd.h>

#include <chrono>
#include <thread>

using namespace cs::store;

namespace {

// Every file under dir (locks and the catalog's -shm aside) with its SHA-256.
std::map<QString, std::string> filesOf(const QString& dir)
{
    std::map<QString, std::string> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = QDir(dir).relativeFilePath(path);
        if (rel.endsWith(".lock") || rel.endsWith("-shm"))
            continue;
        files[rel] = testsupport::sha256OfFile(path);
    }
    return files;
}

// A store "s" made by the CLI with a merged entry "m" (700 KB) and an
// unmerged one "u" (300 KB in 64 KiB parts).
struct Fixture {
    QTemporaryDir tmp;
    QString dir = tmp.filePath("s");
    QByteArray merged = testsupport::randomBytes(700000, 31);
    QByteArray unmerged = testsupport::randomBytes(300000, 32);
    Fixture()
    {
        testsupport::writeFile(tmp.filePath("m.in"), merged);
        testsupport::writeFile(tmp.filePath("u.in"), unmerged);
        QCOMPARE(testsupport::cli({"store", "init", dir}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "put", "--wait", dir, "m", tmp.filePath("m.in")}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "put", dir, "u", tmp.filePath("u.in"), "--no-merge", "--part-size", "64KiB"})
                     .exitCode,
                 0);
    }
    // `store get KEY` into a file outside the store: exit code and bytes.
    QByteArray get(const char* key, int expectExit = 0)
    {
        const QString out = tmp.filePath(QString("got-") + key);
        QFile::remove(out);
        const auto r = testsupport::cli({"store", "get", dir, key, out});
        [&] { QVERIFY2(r.exitCode == expectExit, r.err.constData()); }();
        return testsupport::readFile(out);
    }
    // Replaces dir/rel by a hard link to a copy of it outside the store
    // ("victim"): the store reads the same bytes, a write would change the victim.
    QString hardLink(const QString& rel)
    {
        const QString victim = tmp.filePath("victim-" + QFileInfo(rel).fileName());
        [&] {
            QVERIFY(QFile::copy(dir + "/" + rel, victim));
            QVERIFY(QFile::remove(dir + "/" + rel));
            QCOMPARE(::link(QFile::encodeName(victim).constData(), QFile::encodeName(dir + "/" + rel).constData()), 0);
        }();
        return victim;
    }
};

} // namespace

class StoreSafetyTest : public QObject {
    Q_OBJECT
private slots:
    void getIntoTheStoreIsRefused_data()
    {
        QTest::addColumn<QString>("target");   // relative to the temp folder; "s" is the store, "l" a link to it
        QTest::newRow("pack/0.suffix") << "s/pack/0.suffix";
        QTest::newRow("catalog.db") << "s/catalog.db";
        QTest::newRow("through ..") << "s/parts/../pack/../catalog.db";
        QTest::newRow("through a link to the store") << "l/pack/0.suffix";
        QTest::newRow("a link, its catalog") << "l/catalog.db";
        QTest::newRow("a new file in the store") << "s/pack/new.bin";
        QTest::newRow("a new file in its parts") << "l/parts/x";
        QTest::newRow("through a link and ..") << "s/../l/./catalog.db";
    }
    void getIntoTheStoreIsRefused()
    {
        QFETCH(QString, target);
        Fixture f;
        QVERIFY(QFile::link(f.dir, f.tmp.filePath("l")));
        const auto before = filesOf(f.dir);
        for (const char* key : {"m", "u"}) {
            const auto r = testsupport::cli({"store", "get", f.dir, key, f.tmp.filePath(target)});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("lies inside the store"), r.err.constData());
            QCOMPARE(filesOf(f.dir), before);
        }
        QVERIFY(!QFileInfo::exists(f.dir + "/pack/new.bin"));
        QCOMPARE(f.get("m"), f.merged);
        QCOMPARE(f.get("u"), f.unmerged);
    }

    void getBesideTheStoreStillWorks()
    {
        Fixture f;
        QVERIFY(QFile::link(f.dir, f.tmp.filePath("l")));
        // A sibling folder whose name starts like the store's, and the store's parent.
        QVERIFY(QDir().mkpath(f.tmp.filePath("s2")));
        for (const QString& out : {f.tmp.filePath("s2/out"), f.tmp.filePath("l/../beside")}) {
            const auto r = testsupport::cli({"store", "get", f.dir, "m", out});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(testsupport::readFile(out), f.merged);
        }
    }

    void benchOutputsIntoItsStoreAreRefused()
    {
        Fixture f;
        const auto before = filesOf(f.dir);
        for (const char* flag : {"--csv", "--plot"}) {
            const auto r = testsupport::cli({"bench", "gc", "--store", f.dir, flag, f.dir + "/catalog.db", "--param",
                                             "objects=100", "-q"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("lies inside the store"), r.err.constData());
            QCOMPARE(filesOf(f.dir), before);
        }
    }

    void hardLinkedSuffixIsReadNeverWritten()
    {
        Fixture f;
        const QString victim = f.hardLink("pack/0.suffix");
        const std::string victimSha = testsupport::sha256OfFile(victim);
        QCOMPARE(f.get("m"), f.merged);   // reads are unaffected
        QVERIFY(testsupport::writeFile(f.tmp.filePath("n.in"), testsupport::randomBytes(200000, 33)));
        const auto put = testsupport::cli({"store", "put", "--wait", f.dir, "n", f.tmp.filePath("n.in")});
        QCOMPARE(put.exitCode, 1);
        QVERIFY2(put.err.contains("0.suffix") && put.err.contains("hard links"), put.err.constData());
        QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        // Without --wait the parts are committed and the merge behind the
        // command is the one refused: the entry stays unmerged, saying why.
        const auto behind = testsupport::cli({"store", "put", f.dir, "n", f.tmp.filePath("n.in"), "--json"});
        QVERIFY2(behind.exitCode == 0, behind.err.constData());
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        const auto ls = testsupport::cli({"store", "ls", f.dir, "--json"});
        QVERIFY2(ls.out.contains("\"unmerged\"") && ls.out.contains("hard links"), ls.out.constData());
        const auto merge = testsupport::cli({"store", "merge", f.dir, "--all"});
        QCOMPARE(merge.exitCode, 1);
        QVERIFY2(merge.err.contains("0.suffix") && merge.err.contains("hard links"), merge.err.constData());
        QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        const auto gc = testsupport::cli({"store", "gc", f.dir});
        QCOMPARE(gc.exitCode, 0);   // GC writes a new generation and leaves the linked file alone
        QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        QCOMPARE(f.get("m"), f.merged);
    }

    // The merge behind a complete restore fails (here: the suffix has a
    // second link): the output is whole, the command exits 0 and warns.
    void getWhoseMergeFailsExitsZeroAndWarns()
    {
        Fixture f;
        const QString victim = f.hardLink("pack/0.suffix");
        const std::string victimSha = testsupport::sha256OfFile(victim);
        const QString out = f.tmp.filePath("u.out");
        const auto r = testsupport::cli({"store", "get", "--wait", f.dir, "u", out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("warning:") && r.err.contains("merging it failed") && r.err.contains("hard links"),
                 r.err.constData());
        QCOMPARE(testsupport::readFile(out), f.unmerged);
        QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        const auto ls = testsupport::cli({"store", "ls", f.dir, "--json"});
        QVERIFY(ls.out.contains("\"unmerged\""));
        // Without --wait the command returns with the whole output and the
        // failure behind it goes to the row, not to a terminal.
        QVERIFY(QFile::remove(out));
        const auto behind = testsupport::cli({"store", "get", f.dir, "u", out});
        QVERIFY2(behind.exitCode == 0, behind.err.constData());
        QVERIFY2(!behind.err.contains("warning:"), behind.err.constData());
        QCOMPARE(testsupport::readFile(out), f.unmerged);
        QCOMPARE(testsupport::cli({"store", "merge", f.dir, "--wait-background"}).exitCode, 0);
        QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        const auto after = testsupport::cli({"store", "ls", f.dir, "--json"});
        QVERIFY2(after.out.contains("\"unmerged\"") && after.out.contains("hard links"), after.out.constData());
    }

    void hardLinkedCatalogIsReadNeverWritten()
    {
        Fixture f;
        QVERIFY(!QFileInfo::exists(f.dir + "/catalog.db-wal") || QFileInfo(f.dir + "/catalog.db-wal").size() == 0);
        const QString victim = f.hardLink("catalog.db");
        const std::string victimSha = testsupport::sha256OfFile(victim);
        const auto ls = testsupport::cli({"store", "ls", f.dir});
        QVERIFY2(ls.exitCode == 0 && ls.out.contains("m") && ls.out.contains("u"), ls.err.constData());
        QCOMPARE(f.get("m"), f.merged);
        QCOMPARE(testsupport::cli({"store", "fsck", f.dir}).exitCode, 0);
        QCOMPARE(testsupport::cli({"store", "gc", f.dir, "--dry-run"}).exitCode, 0);
        QVERIFY(testsupport::writeFile(f.tmp.filePath("n.in"), testsupport::randomBytes(1000, 34)));
        for (const QStringList& write :
             {QStringList{"store", "put", f.dir, "n", f.tmp.filePath("n.in")}, QStringList{"store", "merge", f.dir, "--all"},
              QStringList{"store", "evict", f.dir, "--key", "m"}, QStringList{"store", "gc", f.dir}}) {
            const auto r = testsupport::cli(write);
            QVERIFY2(r.exitCode == 1, qPrintable(write.join(' ')));
            QVERIFY2(r.err.contains("catalog.db") && r.err.contains("hard links"), r.err.constData());
            QCOMPARE(testsupport::sha256OfFile(victim), victimSha);
        }
        QCOMPARE(f.get("m"), f.merged);
    }

    void runningUploadIsNeverEvicted()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        auto store = Store::init(dir);
        const QByteArray data = testsupport::randomBytes(100000, 35);
        const int64_t id = store->reserve("running");
        store->writePart(id, 0, data.constData(), 50000);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        cs::Job job;
        job.start();
        for (bool dry : {true, false}) {
            EvictPolicy p;
            p.dryRun = dry;
            p.olderThanSeconds = 1;
            p.keys = {"running"};
            p.maxBytes = 0;
            const auto r = store->evict(p, job);
            QVERIFY(r.evicted.empty());
            QCOMPARE(r.keptRunningUploads.size(), size_t(1));
            QCOMPARE(r.keptRunningUploads[0].id, id);
        }
        const auto cli = testsupport::cli({"store", "evict", tmp.filePath("s"), "--older-than", "1s", "--dry-run"});
        QCOMPARE(cli.exitCode, 0);
        QVERIFY2(cli.out.contains("kept upload " + QByteArray::number(qlonglong(id))) && cli.out.contains("still running"),
                 cli.out.constData());
        QCOMPARE(testsupport::cli({"store", "evict", tmp.filePath("s"), "--older-than", "1s"}).exitCode, 0);
        // The upload goes on and commits.
        store->writePart(id, 1, data.constData() + 50000, 50000);
        store->commit(id, 2);
        const auto e = store->lookup(storetest::request("running"));
        QVERIFY(e);
        QCOMPARE(storetest::restore(*store, e->first.id), data);
        // Idle past the stale age, an upload goes.
        const int64_t idle = store->reserve("idle");
        store->writePart(idle, 0, data.constData(), 1000);
        EvictPolicy p;
        p.olderThanSeconds = 1;
        p.now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() + 2 * 24 * 3600;
        const auto r = store->evict(p, job);
        bool gone = false;
        for (const auto& row : r.evicted)
            gone = gone || row.id == idle;
        QVERIFY(gone);
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreSafetyTest)
#include "tst_store_safety.moc"
