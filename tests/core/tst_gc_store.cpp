// GC on the real store (core/store): successive GCs with evictions between,
// every live entry restores byte-exact and fsck stays clean, the pack
// shrinks to exactly the bytes live entries reference, merges running during
// the GC keep everything, and the CLI (store gc, gc-history, gc-compare,
// crash through CACHESCOPE_GC_KILL_AT).
#include "common/TestSupport.h"

#include "core/gc/Gc.h"
#include "core/pack/Pack.h"
#include "core/store/Store.h"
#include "core/util/Error.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcessEnvironment>

#include <atomic>
#include <thread>

using namespace cs;

namespace {

struct Kept {
    int64_t id;
    std::string key;
    QByteArray data;
};

// Files that share most of their bytes (a common base plus unique parts).
QByteArray fileFor(int i, const QByteArray& base)
{
    QByteArray b = base.left(int(base.size() / 2 + (i % 4) * 100000));
    b += testsupport::randomBytes(300000 + (i % 3) * 200000, uint64_t(i) * 7 + 1);
    return b;
}

int64_t put(store::Store& s, const QString& dir, const std::string& key, const QByteArray& data, bool merge = true)
{
    const QString path = dir + "/in-" + QString::fromStdString(key);
    testsupport::writeFile(path, data);
    Job job;
    const auto row = s.putFile(key, path.toStdString(), job, {}, {}, 256 << 10, 2);
    if (merge) {
        Job mj;
        s.merge(row.id, mj);
    }
    QFile::remove(path);
    return row.id;
}

QByteArray restore(store::Store& s, int64_t id)
{
    QByteArray out;
    Job job;
    s.restoreEntry(id, [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), qsizetype(n)); }, job);
    return out;
}

uint64_t packDataBytes(store::Store& s)
{
    s.pack().reload();
    const auto z = s.pack().sizes();
    return z.prefixBytes + z.suffixBytes;
}

void evictKey(store::Store& s, const std::string& key)
{
    store::EvictPolicy p;
    p.keys = {key};
    Job job;
    s.evict(p, job);
}

// A store of four entries sharing bytes, the second one evicted: a GC has
// something to reclaim.
std::unique_ptr<store::Store> storeWithOneEvicted(const QTemporaryDir& dir, const QString& storeDir, const std::string& prefix,
                                                  uint64_t seed)
{
    auto s = store::Store::init(storeDir.toStdString());
    const QByteArray base = testsupport::randomBytes(1000000, seed);
    for (int i = 0; i < 4; ++i)
        put(*s, dir.path(), prefix + std::to_string(i), fileFor(i, base));
    evictKey(*s, prefix + "1");
    return s;
}

} // namespace

class TestGcStore : public QObject {
    Q_OBJECT
private slots:
    void successiveGcsWithEvictions_data()
    {
        QTest::addColumn<int>("rounds");
        QTest::newRow("1") << 1;
        QTest::newRow("2") << 2;
        QTest::newRow("5") << 5;
    }
    void successiveGcsWithEvictions()
    {
        QFETCH(int, rounds);
        QTemporaryDir dir;
        const QString storeDir = dir.filePath("store");
        auto s = store::Store::init(storeDir.toStdString());
        const QByteArray base = testsupport::randomBytes(1500000, 99);
        std::vector<Kept> live;
        int next = 0;
        for (int i = 0; i < 6; ++i, ++next) {
            const std::string key = "k" + std::to_string(next);
            const QByteArray data = fileFor(next, base);
            live.push_back({put(*s, dir.path(), key, data), key, data});
        }
        for (int round = 0; round < rounds; ++round) {
            // Evict every other entry, add two more.
            std::vector<Kept> keep;
            for (size_t i = 0; i < live.size(); ++i) {
                if (i % 2 == size_t(round % 2))
                    evictKey(*s, live[i].key);
                else
                    keep.push_back(live[i]);
            }
            live = keep;
            for (int i = 0; i < 2; ++i, ++next) {
                const std::string key = "k" + std::to_string(next);
                const QByteArray data = fileFor(next, base);
                live.push_back({put(*s, dir.path(), key, data), key, data});
            }
            Job sj;
            const uint64_t stored = s->stats(sj).storedBytes; // bytes live entries reference
            const uint64_t before = packDataBytes(*s);
            QVERIFY(stored < before);
            Job job;
            const auto r = gc::collectStoreGarbage(storeDir.toStdString(), {}, job);
            QCOMPARE(r.stats.status, std::string("done"));
            QCOMPARE(r.stats.reclaimedBytes, before - stored); // exactly the unshared bytes of evicted entries
            QCOMPARE(packDataBytes(*s), stored);
            for (const auto& k : live)
                QVERIFY2(restore(*s, k.id) == k.data, k.key.c_str());
            Job fj;
            const auto problems = s->fsck(fj);
            QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().message.c_str());
        }
        QCOMPARE(gc::gcHistory((storeDir + "/catalog.db").toStdString()).size(), size_t(rounds));
        // A fresh open of the store reads the same.
        s.reset();
        s = store::Store::open(storeDir.toStdString());
        for (const auto& k : live)
            QVERIFY(restore(*s, k.id) == k.data);
    }

    void mergesDuringGcKeepEverything()
    {
        QTemporaryDir dir;
        const QString storeDir = dir.filePath("store");
        auto s = store::Store::init(storeDir.toStdString());
        const QByteArray base = testsupport::randomBytes(2000000, 5);
        std::vector<Kept> merged, pending;
        for (int i = 0; i < 8; ++i) {
            const std::string key = "m" + std::to_string(i);
            const QByteArray data = fileFor(i, base);
            merged.push_back({put(*s, dir.path(), key, data), key, data});
        }
        for (int i = 0; i < 8; i += 2)
            evictKey(*s, merged[size_t(i)].key);
        // Unmerged entries sharing bytes with the evicted ones: merged while the GC runs.
        for (int i = 0; i < 4; ++i) {
            const std::string key = "u" + std::to_string(i);
            const QByteArray data = fileFor(i * 2, base); // the same content as an evicted entry
            pending.push_back({put(*s, dir.path(), key, data, false), key, data});
        }
        auto other = store::Store::open(storeDir.toStdString());
        std::atomic<int> done{0};
        std::thread merger([&] {
            for (const auto& k : pending) {
                Job job;
                other->merge(k.id, job);
                ++done;
            }
        });
        gc::GcOptions o;
        o.hook = [&](const char* point) {
            // Hold the GC in the middle until merges happened during it.
            if (std::string(point) == "traverse")
                while (done.load() < 2)
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
        };
        Job job;
        const auto r = gc::collectStoreGarbage(storeDir.toStdString(), o, job);
        merger.join();
        QCOMPARE(r.stats.status, std::string("done"));
        for (size_t i = 1; i < merged.size(); i += 2)
            QVERIFY(restore(*s, merged[i].id) == merged[i].data);
        for (const auto& k : pending) {
            const auto row = s->entry(k.id);
            QVERIFY(row && row->state == store::EntryState::Merged);
            QVERIFY2(restore(*s, k.id) == k.data, k.key.c_str());
        }
        Job fj;
        QVERIFY(s->fsck(fj).empty());
        // A second GC keeps them all as well.
        Job j2;
        gc::collectStoreGarbage(storeDir.toStdString(), {}, j2);
        for (const auto& k : pending)
            QVERIFY(restore(*s, k.id) == k.data);
        Job fj2;
        QVERIFY(s->fsck(fj2).empty());
    }

    void dryRunGoesOnBesideARunningGc()
    {
        // While another process holds the GC lock, a GC fails with a clear
        // message and a dry run works (and reports the same live bytes as a
        // later real GC).
        QTemporaryDir dir;
        const QString storeDir = dir.filePath("store");
        auto s = storeWithOneEvicted(dir, storeDir, "k", 9);
        uint64_t dryLive = 0;
        {
            auto held = pack::Pack::open(storeDir.toStdString() + "/pack", false);
            const FileLock lock = held->tryLockGc();
            QVERIFY(lock.held());
            Job job;
            try {
                gc::collectStoreGarbage(storeDir.toStdString(), {}, job);
                QFAIL("a second GC ran beside the lock holder");
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find("another GC is running") != std::string::npos, e.what());
            }
            gc::GcOptions dry;
            dry.dryRun = true;
            Job dj;
            const auto r = gc::collectStoreGarbage(storeDir.toStdString(), dry, dj);
            QCOMPARE(r.stats.status, std::string("done"));
            QVERIFY(r.stats.reclaimedBytes > 0);
            dryLive = r.stats.liveBytes;
        }
        Job job;
        const auto r = gc::collectStoreGarbage(storeDir.toStdString(), {}, job);
        QCOMPARE(r.stats.liveBytes, dryLive);
    }

    void cliGcHistoryCompare()
    {
        QTemporaryDir dir;
        const QString storeDir = dir.filePath("store");
        storeWithOneEvicted(dir, storeDir, "c", 3);
        auto dry = testsupport::cli({"store", "gc", storeDir, "--dry-run", "--json", "--ranges"});
        QCOMPARE(dry.exitCode, 0);
        const QJsonObject d = QJsonDocument::fromJson(dry.out).object();
        QCOMPARE(d["dry_run"].toBool(), true);
        QVERIFY(d["reclaimed_bytes"].toDouble() > 0);
        QVERIFY(d["live_ranges"].toArray().size() > 0);
        QVERIFY(d["dead_ranges"].toArray().size() > 0);
        auto run = testsupport::cli({"store", "gc", storeDir, "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject g = QJsonDocument::fromJson(run.out).object();
        for (const char* k : {"generation", "objects_visited", "live_bytes", "reclaimed_bytes", "pack_bytes_before",
                              "pack_bytes_after", "steps", "run_id"})
            QVERIFY2(g.contains(k), k);
        QCOMPARE(g["generation"].toInt(), 1);
        QCOMPARE(g["reclaimed_bytes"].toDouble(), d["reclaimed_bytes"].toDouble());
        QCOMPARE(g["pack_bytes_after"].toDouble(), g["pack_bytes_before"].toDouble() - g["reclaimed_bytes"].toDouble()
                                                       + 24.0 * g["ranges"].toDouble());
        const QJsonArray steps = g["steps"].toArray();
        QCOMPARE(steps.size(), 6);
        for (const auto& v : steps)
            for (const char* k : {"name", "wall_s", "user_s", "sys_s", "maxrss_kib", "minflt", "majflt", "inblock",
                                  "oublock", "nvcsw", "nivcsw"})
                QVERIFY2(v.toObject().contains(k), k);
        auto hist = testsupport::cli({"store", "gc-history", storeDir, "--json"});
        QCOMPARE(hist.exitCode, 0);
        const QJsonArray runs = QJsonDocument::fromJson(hist.out).object()["runs"].toArray();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].toObject()["dry_run"].toBool(), false);
        QCOMPARE(runs[1].toObject()["dry_run"].toBool(), true);
        const QString a = QString::number(runs[1].toObject()["id"].toInt());
        const QString b = QString::number(runs[0].toObject()["id"].toInt());
        auto cmp = testsupport::cli({"store", "gc-compare", storeDir, a, b});
        QCOMPARE(cmp.exitCode, 0);
        QVERIFY(cmp.out.contains("live_bytes"));
        QVERIFY(cmp.out.contains("100.0 %"));
        auto human = testsupport::cli({"store", "gc-history", storeDir});
        QCOMPARE(human.exitCode, 0);
        QVERIFY(human.out.contains("done"));
        QCOMPARE(testsupport::cli({"store", "gc-compare", storeDir, a, "999"}).exitCode, 1);
        QCOMPARE(testsupport::cli({"store", "gc-compare", storeDir, a}).exitCode, 2);
        QCOMPARE(testsupport::cli({"store", "gc", dir.filePath("nothing")}).exitCode, 1);
        QCOMPARE(testsupport::cli({"store", "gc"}).exitCode, 2);
    }

    void cliKilledDuringGcLeavesAWorkingStore_data()
    {
        QTest::addColumn<QString>("killAt");
        QTest::addColumn<int>("generation");
        QTest::newRow("traverse") << "traverse" << 0;
        QTest::newRow("copy") << "copy" << 0;
        QTest::newRow("before control") << "before control" << 0;
        QTest::newRow("after control") << "after control" << 1;
        QTest::newRow("cleanup") << "cleanup" << 1;
    }
    void cliKilledDuringGcLeavesAWorkingStore()
    {
        QFETCH(QString, killAt);
        QFETCH(int, generation);
        QTemporaryDir dir;
        const QString storeDir = dir.filePath("store");
        std::vector<Kept> live;
        {
            auto s = store::Store::init(storeDir.toStdString());
            const QByteArray base = testsupport::randomBytes(1000000, 8);
            for (int i = 0; i < 4; ++i) {
                const std::string key = "x" + std::to_string(i);
                const QByteArray data = fileFor(i, base);
                live.push_back({put(*s, dir.path(), key, data), key, data});
            }
            evictKey(*s, "x0");
            live.erase(live.begin());
        }
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("CACHESCOPE_GC_KILL_AT", killAt);
        p.setProcessEnvironment(env);
        p.start(CACHESCOPE_CLI, {"store", "gc", storeDir});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        auto s = store::Store::open(storeDir.toStdString());
        QCOMPARE(int(s->pack().sizes().generation), generation);
        for (const auto& k : live)
            QVERIFY(restore(*s, k.id) == k.data);
        // Opening deleted nothing; fsck reports what the GC left, fsck --repair removes it.
        Job fj;
        for (const auto& pr : s->fsck(fj))
            QVERIFY2(!pr.path.empty() && pr.message.find("interrupted GC") != std::string::npos, pr.message.c_str());
        Job rj;
        s->removeOrphans(rj);
        Job fj1;
        QVERIFY(s->fsck(fj1).empty());
        for (const auto& name : QDir(storeDir + "/pack").entryList(QDir::Files))
            QVERIFY2(name == "control" || name.endsWith(".lock") || name.startsWith(QString::number(generation) + "."),
                     qPrintable(name));
        auto again = testsupport::cli({"store", "gc", storeDir, "--json"});
        QCOMPARE(again.exitCode, 0);
        for (const auto& k : live)
            QVERIFY(restore(*s, k.id) == k.data);
        Job fj2;
        QVERIFY(s->fsck(fj2).empty());
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcStore)
#include "tst_gc_store.moc"
