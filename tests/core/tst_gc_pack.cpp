// GC on a real pack (roots given as a list, as the store will give them):
// successive GCs with evictions, byte-exact restores, collected offsets,
// pack size drops by exactly the unreachable bytes, dry run, appends during
// GC, cancel, readers of the old generation.
#include "common/TestSupport.h"
#include "core/GcTestPack.h"

#include "core/pack/MappingFile.h"
#include "core/util/Error.h"

#include <QDir>

#include <atomic>
#include <thread>

using namespace cs;
using namespace gctest;

namespace {

std::map<QString, std::string> hashFiles(const QString& dir)
{
    std::map<QString, std::string> out;
    for (const auto& name : QDir(dir).entryList(QDir::Files)) {
        if (name.endsWith(".lock"))
            continue;
        out[name] = testsupport::sha256OfFile(dir + "/" + name);
    }
    return out;
}

QStringList dataFiles(const QString& dir)
{
    QStringList out;
    for (const auto& name : QDir(dir).entryList(QDir::Files))
        if (!name.endsWith(".lock"))
            out << name;
    return out;
}

uint64_t dataBytes(pack::Pack& p)
{
    const auto s = p.sizes();
    return s.prefixBytes + s.suffixBytes;
}

void checkMapping(pack::Pack& p)
{
    const auto g = p.generation();
    auto recs = g->mapping.all();
    for (size_t i = 1; i < recs.size(); ++i)
        QVERIFY2(recs[i - 1].offset + recs[i - 1].length < recs[i].offset, "records not sorted or not collapsed");
    // The records' pieces of the prefix tile it exactly (in walk order, not offset order).
    std::sort(recs.begin(), recs.end(), [](const auto& a, const auto& b) { return a.prefixOffset < b.prefixOffset; });
    uint64_t prefix = 0;
    for (const auto& r : recs) {
        QCOMPARE(r.prefixOffset, prefix);
        prefix += r.length;
    }
    QCOMPARE(prefix, g->control.prefixBytes);
}

void checkAll(ToyStore& s)
{
    for (const auto& [id, e] : s.entries())
        QVERIFY2(s.restore(e) == e.data, qPrintable(QString("entry %1 does not restore").arg(id)));
    for (uint64_t off : s.collected()) {
        try {
            s.pack().readHeader(off);
            QFAIL(qPrintable(QString("collected offset %1 is still readable").arg(off)));
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find("collected") != std::string::npos, e.what());
        }
    }
}

} // namespace

class TestGcPack : public QObject {
    Q_OBJECT
private slots:
    void successiveGcs_data()
    {
        QTest::addColumn<int>("rounds");
        QTest::addColumn<int>("blockBytes");
        QTest::addColumn<int>("maxChunk"); // raw bytes; 16 letters compress about 2:1
        QTest::newRow("1") << 1 << (8 << 10) << 3000;
        QTest::newRow("2") << 2 << (8 << 10) << 3000;
        QTest::newRow("5") << 5 << (8 << 10) << 3000;
        QTest::newRow("5, 4 MiB blocks") << 5 << (4 << 20) << 3000;
        QTest::newRow("5, 100-byte blocks: every range copied on its own") << 5 << 100 << 3000;
        // Objects over 16 KiB are not read by the walk but copied in the
        // kernel, from the suffix and (rounds 2-5) across old prefix ranges.
        QTest::newRow("5, large objects, 4 MiB blocks") << 5 << (4 << 20) << 120000;
        QTest::newRow("5, large objects, 64 KiB blocks") << 5 << (64 << 10) << 120000;
    }
    void successiveGcs()
    {
        QFETCH(int, rounds);
        QFETCH(int, blockBytes);
        QFETCH(int, maxChunk);
        QTemporaryDir dir;
        const QString packDir = dir.filePath("pack");
        ToyStore s(packDir.toStdString());
        std::mt19937_64 rng(uint64_t(rounds) * 31);
        std::vector<std::string> shared = makeChunks(rng, {}, 8, size_t(maxChunk));
        for (int i = 0; i < 30; ++i)
            s.add(makeChunks(rng, shared, 1 + int(rng() % 6), size_t(maxChunk)));
        for (int round = 0; round < rounds; ++round) {
            // Evict about half, add a few more (some sharing), then GC.
            std::vector<int> ids;
            for (const auto& [id, e] : s.entries())
                ids.push_back(id);
            for (int id : ids)
                if (rng() % 2)
                    s.evict(id);
            for (int i = 0; i < 10; ++i)
                s.add(makeChunks(rng, shared, int(rng() % 5), size_t(maxChunk)));
            const uint64_t before = dataBytes(s.pack());
            const uint64_t unreachable = s.unreachableBytes();
            const uint64_t generation = s.pack().sizes().generation;
            gc::GcOptions o;
            o.copyBufferBytes = size_t(blockBytes);
            const auto r = s.gc(o);
            QCOMPARE(r.stats.status, std::string("done"));
            QCOMPARE(r.stats.generation, generation + 1);
            QCOMPARE(s.pack().sizes().generation, generation + 1);
            QCOMPARE(r.stats.reclaimedBytes, unreachable);
            QCOMPARE(dataBytes(s.pack()), before - unreachable);
            QCOMPARE(r.stats.objectsVisited, uint64_t(s.liveObjects().size()));
            QCOMPARE(r.stats.steps.size(), size_t(6));
            s.forgetCollected();
            checkMapping(s.pack());
            checkAll(s);
            // Only the current generation's files are left.
            const QString g = QString::number(generation + 1);
            QStringList expected = {"control", g + ".mapping", g + ".prefix", g + ".suffix"};
            QStringList got = dataFiles(packDir);
            expected.sort();
            got.sort();
            QCOMPARE(got, expected);
        }
        // A fresh open reads the same.
        s.reopen(packDir.toStdString());
        checkAll(s);
    }

    void gcWithNothingToCollect()
    {
        QTemporaryDir dir;
        ToyStore s(dir.filePath("pack").toStdString());
        std::mt19937_64 rng(3);
        for (int i = 0; i < 5; ++i)
            s.add(makeChunks(rng, {}, 3));
        const uint64_t before = dataBytes(s.pack());
        const auto r = s.gc();
        QCOMPARE(r.stats.reclaimedBytes, uint64_t(0));
        QCOMPARE(r.stats.ranges, uint64_t(1)); // everything live collapses into one record
        QCOMPARE(dataBytes(s.pack()), before);
        checkAll(s);
        // And an empty GC of an empty root list drops everything.
        for (int i = 0; i < 5; ++i)
            s.evict(i);
        const auto r2 = s.gc();
        QCOMPARE(r2.stats.liveBytes, uint64_t(0));
        QCOMPARE(dataBytes(s.pack()), uint64_t(0));
    }

    void dryRunWritesNothing()
    {
        QTemporaryDir dir;
        const QString packDir = dir.filePath("pack");
        ToyStore s(packDir.toStdString());
        std::mt19937_64 rng(11);
        auto shared = makeChunks(rng, {}, 4);
        for (int i = 0; i < 20; ++i)
            s.add(makeChunks(rng, shared, 2));
        s.gc(); // so that the dry run also sees a prefix and a mapping
        s.forgetCollected();
        for (int i = 0; i < 20; ++i)
            s.add(makeChunks(rng, shared, 2));
        for (int i = 0; i < 40; i += 3)
            s.evict(i);
        const auto hashes = hashFiles(packDir);
        const uint64_t unreachable = s.unreachableBytes();
        const auto live = s.liveObjects();
        gc::GcOptions o;
        o.dryRun = true;
        o.collectRanges = true;
        const auto r = s.gc(o);
        QCOMPARE(hashFiles(packDir), hashes);
        QCOMPARE(r.stats.dryRun, true);
        QCOMPARE(r.stats.reclaimedBytes, unreachable);
        QCOMPARE(r.stats.objectsVisited, uint64_t(live.size()));
        uint64_t liveBytes = 0, deadBytes = 0;
        for (const auto& x : r.liveRanges)
            liveBytes += x.length;
        for (const auto& x : r.deadRanges)
            deadBytes += x.length;
        QCOMPARE(liveBytes, r.stats.liveBytes);
        QCOMPARE(deadBytes, unreachable);
        // Every live object starts inside a live range, every collected one in a dead range.
        auto inside = [](const std::vector<gc::PackRange>& v, uint64_t o) {
            for (const auto& x : v)
                if (o >= x.offset && o < x.end())
                    return true;
            return false;
        };
        for (uint64_t o : live)
            QVERIFY(inside(r.liveRanges, o) && !inside(r.deadRanges, o));
        uint64_t deadObjects = 0;
        s.forgetCollected(); // computes the unreachable set (without a GC having run)
        for (uint64_t o : s.collected()) {
            QVERIFY(inside(r.deadRanges, o) && !inside(r.liveRanges, o));
            ++deadObjects;
        }
        QCOMPARE(r.stats.deadObjects, deadObjects);
    }

    void appendsDuringGcAreKept()
    {
        QTemporaryDir dir;
        const std::string packDir = dir.filePath("pack").toStdString();
        ToyStore s(packDir);
        std::mt19937_64 rng(5);
        for (int i = 0; i < 200; ++i)
            s.add(makeChunks(rng, {}, 4, 20000));
        for (int i = 0; i < 200; i += 2)
            s.evict(i);
        // Another writer (its own Pack, as another process would have) appends during the GC.
        ToyStore writer(packDir);
        std::atomic<bool> stop{false}, go{false};
        std::atomic<int> appended{0};
        std::thread t([&] {
            std::mt19937_64 wr(99);
            // Only appends after the split was read: on a bare pack nothing
            // protects an object appended before it that no root lists (the
            // store's merges redo themselves when they see the GC's epoch).
            while (!go.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            while (!stop.load()) {
                writer.add(makeChunks(wr, {}, 2, 5000));
                ++appended;
            }
        });
        gc::GcOptions o;
        o.copyBufferBytes = 64 << 10;
        o.hook = [&](const char* point) {
            if (std::string(point) == "open")
                go = true;
            // Make sure appends really overlap the traversal and the copy.
            if (std::string(point) == "traverse" || std::string(point) == "copy prefix") {
                const int target = appended.load() + 3;
                while (appended.load() < target)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        };
        gc::GcResult r;
        try {
            r = s.gc(o);
        } catch (const std::exception& e) {
            stop = true;
            t.join();
            QFAIL(e.what());
        }
        const int during = appended.load();
        // Appends continue after the swap, into the new generation.
        while (appended.load() < during + 5)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stop = true;
        t.join();
        QVERIFY(r.stats.appendedDuringGc > 0);
        QVERIFY(appended.load() >= 10);
        try {
            s.forgetCollected();
            checkAll(s);
            s.reopen(packDir);
            for (const auto& [id, e] : writer.entries())
                QVERIFY2(s.restore(e) == e.data, qPrintable(QString("entry %1 appended during GC is lost").arg(id)));
            for (const auto& [id, e] : writer.entries())
                QVERIFY(writer.restore(e) == e.data);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }

    void cancelLeavesOldGenerationIdentical_data()
    {
        QTest::addColumn<QString>("point");
        for (const char* p : {"open", "traverse", "write mapping", "copy", "copy prefix", "suffix"})
            QTest::newRow(p) << QString(p);
    }
    void cancelLeavesOldGenerationIdentical()
    {
        QFETCH(QString, point);
        QTemporaryDir dir;
        const QString packDir = dir.filePath("pack");
        ToyStore s(packDir.toStdString());
        std::mt19937_64 rng(8);
        for (int i = 0; i < 50; ++i)
            s.add(makeChunks(rng, {}, 3, 10000));
        for (int i = 0; i < 50; i += 2)
            s.evict(i);
        s.gc();
        s.forgetCollected();
        for (int i = 0; i < 50; ++i)
            s.add(makeChunks(rng, {}, 3, 10000));
        for (int i = 51; i < 100; i += 3)
            s.evict(i);
        const auto hashes = hashFiles(packDir);
        Job job("gc");
        gc::GcOptions o;
        o.roots = s.roots();
        o.copyBufferBytes = 16 << 10;
        const std::string at = point.toStdString();
        o.hook = [&](const char* p) {
            if (at == p)
                job.cancel();
        };
        bool cancelled = false;
        try {
            gc::collectGarbage(s.pack(), o, job);
        } catch (const cs::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(hashFiles(packDir), hashes);
        checkAll(s);
        // The next GC works.
        s.gc();
        s.forgetCollected();
        checkAll(s);
    }

    void readersOfTheOldGenerationKeepReading()
    {
        QTemporaryDir dir;
        const std::string packDir = dir.filePath("pack").toStdString();
        ToyStore s(packDir);
        std::mt19937_64 rng(21);
        for (int i = 0; i < 40; ++i)
            s.add(makeChunks(rng, {}, 3));
        for (int i = 0; i < 40; i += 2)
            s.evict(i);
        auto reader = pack::Pack::open(packDir, false);
        const auto old = reader->generation();
        s.gc();
        QCOMPARE(reader->generation()->control.generation, old->control.generation);
        for (const auto& [id, e] : s.entries())
            for (uint64_t o : e.objects)
                QCOMPARE(reader->readHeader(o).offset, o);
        QVERIFY(reader->reload());
        s.forgetCollected();
        checkAll(s);
    }

    void secondGcIsRefused()
    {
        QTemporaryDir dir;
        ToyStore s(dir.filePath("pack").toStdString());
        std::mt19937_64 rng(2);
        s.add(makeChunks(rng, {}, 2));
        auto lock = s.pack().tryLockGc();
        QVERIFY(lock.held());
        QVERIFY_THROWS_EXCEPTION(cs::Error, s.gc());
    }

    void bareGcNeedsRoots()
    {
        QTemporaryDir dir;
        auto p = pack::Pack::open(dir.filePath("pack").toStdString(), true);
        Job job;
        QVERIFY_THROWS_EXCEPTION(cs::Error, gc::collectGarbage(*p, {}, job));
    }

    void statsJsonRoundTrip()
    {
        QTemporaryDir dir;
        ToyStore s(dir.filePath("pack").toStdString());
        std::mt19937_64 rng(4);
        for (int i = 0; i < 10; ++i)
            s.add(makeChunks(rng, {}, 2));
        s.evict(3);
        const auto r = s.gc();
        const auto back = gc::GcStats::fromJson(r.stats.toJson());
        QCOMPARE(back.toJson(), r.stats.toJson());
        QCOMPARE(back.objectsVisited, r.stats.objectsVisited);
        QCOMPARE(back.steps.size(), size_t(6));
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(r.stats.toJson()));
        QVERIFY(doc.isObject());
        for (const char* k : {"generation", "objects_visited", "live_bytes", "reclaimed_bytes", "pack_bytes_before",
                              "pack_bytes_after", "steps"})
            QVERIFY2(doc.object().contains(k), k);
        QCOMPARE(doc.object()["steps"].toArray().size(), 6);
        QCOMPARE(doc.object()["steps"].toArray()[1].toObject()["name"].toString(), QString("traverse"));
        // 64-bit counts survive exactly (the stack is not double-based).
        auto huge = r.stats;
        huge.liveBytes = (uint64_t(1) << 53) + 1;
        huge.reclaimedBytes = UINT64_MAX;
        QVERIFY(huge.toJson().find("\"live_bytes\":9007199254740993,") != std::string::npos);
        const auto hugeBack = gc::GcStats::fromJson(huge.toJson());
        QCOMPARE(hugeBack.liveBytes, (uint64_t(1) << 53) + 1);
        QCOMPARE(hugeBack.reclaimedBytes, UINT64_MAX);
        // A damaged stats_json is one sentence with the offset.
        try {
            gc::GcStats::fromJson("{\"live_bytes\": 1,");
            QFAIL("parsed a truncated document");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).rfind("GC stats: not JSON at byte ", 0) == 0, e.what());
        }
        std::string deep(300, '[');
        try {
            gc::GcStats::fromJson(deep + std::string(300, ']'));
            QFAIL("parsed 300 levels");
        } catch (const cs::Error& e) {
            QVERIFY2(std::string(e.what()).find("deeper than 256") != std::string::npos, e.what());
        }
        const auto rows = gc::compareGcRuns(r.stats, back);
        QVERIFY(!rows.empty());
        for (const auto& row : rows)
            if (row.a != 0)
                QCOMPARE(row.percent, 100.0);
    }
};

CACHESCOPE_CORE_TEST_MAIN(TestGcPack)
#include "tst_gc_pack.moc"
