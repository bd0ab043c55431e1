// Concurrency of the store: 8 restores of one unmerged entry share one merge;
// two store instances (as two processes) restore the same unmerged entry;
// concurrent merges of different entries; the GC epoch rule and the dedup
// split rule while a GC runs.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/store/StoreTesting.h"
#include "core/pack/FileLock.h"

#include "core/pack/Pack.h"

#include <thread>

using namespace cs::store;

class StoreConcurrentTest : public QObject {
    Q_OBJECT

private slots:
    void eightRestoresOfOneUnmergedEntry()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::textBytes(24 << 20, 42);
        const EntryRow e = storetest::upload(*store, "shared", data, 1 << 20, 4);
        std::vector<QByteArray> outs(8);
        std::vector<RestoreResult> results(8);
        std::vector<std::string> errors(8);
        std::vector<std::thread> threads;
        for (int i = 0; i < 8; ++i)
            threads.emplace_back([&, i] {
                try {
                    outs[i] = storetest::restore(*store, e.id, &results[i]);
                } catch (const std::exception& ex) {
                    errors[i] = ex.what();
                }
            });
        for (auto& t : threads)
            t.join();
        int merged = 0;
        for (int i = 0; i < 8; ++i) {
            QVERIFY2(errors[i].empty(), errors[i].c_str());
            QCOMPARE(outs[i].size(), data.size());
            QVERIFY(outs[i] == data);
            merged += results[i].mergedNow ? 1 : 0;
        }
        QCOMPARE(merged, 1);
        QCOMPARE(store->entry(e.id)->state, EntryState::Merged);
        // Merged once: the pack holds exactly the objects of this one entry.
        cs::Job job;
        job.start();
        const StoreStats st = store->stats(job);
        QCOMPARE(st.storedBytes, st.packBytes);
        QCOMPARE(storetest::sqlInt(store->catalogPath(), "SELECT count(*) FROM chunks"),
                 int64_t(store->entryDetails(e.id).objects.size() - 1));
    }

    void twoStoreInstancesRestoreTheSameUnmergedEntry()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        auto a = Store::init(dir);
        auto b = Store::open(dir);
        const QByteArray data = testsupport::randomBytes(12 << 20, 5);
        const EntryRow e = storetest::upload(*a, "k", data, 1 << 20, 4);
        QByteArray outA, outB;
        std::string errA, errB;
        std::thread ta([&] { try { outA = storetest::restore(*a, e.id); } catch (const std::exception& x) { errA = x.what(); } });
        std::thread tb([&] { try { outB = storetest::restore(*b, e.id); } catch (const std::exception& x) { errB = x.what(); } });
        ta.join();
        tb.join();
        QVERIFY2(errA.empty(), errA.c_str());
        QVERIFY2(errB.empty(), errB.c_str());
        QVERIFY(outA == data);
        QVERIFY(outB == data);
        QCOMPARE(a->entry(e.id)->state, EntryState::Merged);
        cs::Job job;
        job.start();
        QVERIFY(a->fsck(job).empty());
        QCOMPARE(storetest::restore(*b, e.id), data);
    }

    void concurrentMergesOfDifferentEntries()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray base = testsupport::randomBytes(6 << 20, 77);
        std::vector<QByteArray> datas;
        std::vector<int64_t> ids;
        for (int i = 0; i < 4; ++i) {
            QByteArray d = base;
            d.append(testsupport::randomBytes(1 << 20, 100 + uint64_t(i)));   // shared head, own tail
            datas.push_back(d);
            ids.push_back(storetest::upload(*store, "k" + std::to_string(i), d, 1 << 20, 2).id);
        }
        std::vector<std::thread> threads;
        std::vector<std::string> errors(4);
        for (int i = 0; i < 4; ++i)
            threads.emplace_back([&, i] {
                try {
                    cs::Job job;
                    job.start();
                    store->merge(ids[size_t(i)], job);
                } catch (const std::exception& ex) {
                    errors[size_t(i)] = ex.what();
                }
            });
        for (auto& t : threads)
            t.join();
        for (int i = 0; i < 4; ++i) {
            QVERIFY2(errors[size_t(i)].empty(), errors[size_t(i)].c_str());
            QCOMPARE(storetest::restore(*store, ids[size_t(i)]), datas[size_t(i)]);
        }
        cs::Job job;
        job.start();
        QVERIFY(store->fsck(job).empty());
    }

    void gcEpochChangeRedoesTheMerge()
    {
        QTemporaryDir tmp;
        StoreOptions opts;
        std::string catalog;
        int calls = 0;
        // Between the merge's start and its commit a "GC" starts: bump the epoch
        // through another connection, as the GC process would.
        opts.testHooks = cs::store::testing::beforeMergeCommit([&](int64_t) {
            if (calls++ == 0)
                QVERIFY(storetest::sql(catalog, "UPDATE gc_state SET epoch = epoch + 1 WHERE id = 1"));
        });
        auto store = Store::init(tmp.filePath("s").toStdString(), opts);
        catalog = store->catalogPath();
        const QByteArray data = testsupport::textBytes(6 << 20, 8);
        const EntryRow e = storetest::upload(*store, "k", data, 1 << 20, 3);
        cs::Job job;
        job.start();
        const MergeResult m = store->merge(e.id, job);
        QCOMPARE(m.redone, 1);
        QCOMPARE(calls, 2);
        QVERIFY(m.merged);
        QCOMPARE(store->entry(e.id)->rootOffset, m.rootOffset);
        QCOMPARE(storetest::restore(*store, e.id), data);
        QVERIFY(store->fsck(job).empty());
    }

    void dedupIgnoresChunksBelowTheSplitWhileGcRuns()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::randomBytes(5 << 20, 9);
        const EntryRow a = storetest::upload(*store, "a", data, 1 << 20, 2);
        cs::Job job;
        job.start();
        const MergeResult ma = store->merge(a.id, job);
        QCOMPARE(ma.newChunks, ma.chunks);
        // Same bytes again with no GC running: everything deduplicates.
        const EntryRow b = storetest::upload(*store, "b", data, 1 << 20, 2);
        const MergeResult mb = store->merge(b.id, job);
        QCOMPARE(mb.newChunks, uint64_t(0));
        // A GC is running with its split at the current end: chunk rows below it
        // must not be reused (the GC may collect them).
        const uint64_t split = store->pack().end();
        // (A GC holds its lock while running=1; a free lock means a dead GC.)
        const cs::FileLock gcLock = cs::FileLock::tryLock(store->pack().filePath("gc.lock"), cs::FileLock::Exclusive);
        QVERIFY(gcLock.held());
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE gc_state SET epoch=epoch+1, running=1, split="
                                                          + std::to_string(split) + " WHERE id=1"));
        const EntryRow c = storetest::upload(*store, "c", data, 1 << 20, 2);
        const MergeResult mc = store->merge(c.id, job);
        QCOMPARE(mc.newChunks, mc.chunks);
        // Their rows moved above the split; a later merge during the GC reuses those.
        QCOMPARE(storetest::sqlInt(store->catalogPath(), "SELECT count(*) FROM chunks WHERE offset < " + std::to_string(split)),
                 int64_t(0));
        const EntryRow d2 = storetest::upload(*store, "d", data, 1 << 20, 2);
        QCOMPARE(store->merge(d2.id, job).newChunks, uint64_t(0));
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE gc_state SET running=0 WHERE id=1"));
        for (int64_t id : {a.id, b.id, c.id, d2.id})
            QCOMPARE(storetest::restore(*store, id), data);
    }

    void cancelledMergeLeavesTheEntryUnmerged()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::textBytes(8 << 20, 12);
        const EntryRow e = storetest::upload(*store, "k", data, 1 << 20, 2);
        cs::Job job;
        job.start();
        job.cancel();
        {
            bool cancelledThrown = false;
            try {
                store->merge(e.id, job);
            } catch (const cs::Cancelled&) {
                cancelledThrown = true;
            }
            QVERIFY(cancelledThrown);
        }
        QCOMPARE(store->entry(e.id)->state, EntryState::Unmerged);
        QCOMPARE(storetest::sqlInt(store->catalogPath(), "SELECT count(*) FROM chunks"), int64_t(0));
        QCOMPARE(storetest::restore(*store, e.id), data);
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreConcurrentTest)
#include "tst_store_concurrent.moc"
