// The store browser's queries: count and page with filters and every sort
// column, against an independent ordering computed here; synthetic entries
// restore correctly; entry details list parts and the object tree.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/store/StoreTesting.h"

#include <algorithm>

using namespace cs::store;

class StoreBrowseTest : public QObject {
    Q_OBJECT

private slots:
    void pagingMatchesAFullSort()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        cs::Job job;
        job.start();
        cs::store::testing::generateSyntheticEntries(*store, 3000, job);
        // A few real ones too.
        storetest::upload(*store, "real-a", testsupport::randomBytes(5000, 1), 1000, 2);
        storetest::upload(*store, "real-b", testsupport::randomBytes(7000, 2), 1000, 2);
        const uint64_t n = store->countEntries({});
        QCOMPARE(n, uint64_t(3002));
        const auto all = store->listEntries({}, SortColumn::Id, false, 0, n + 10);
        QCOMPARE(all.size(), size_t(n));
        for (SortColumn col : {SortColumn::Key, SortColumn::Size, SortColumn::State, SortColumn::LastAccess, SortColumn::Created}) {
            for (bool desc : {false, true}) {
                auto expected = all;
                auto keyOf = [&](const EntryRow& r) -> std::tuple<std::string, double> {
                    switch (col) {
                    case SortColumn::Key: return std::make_tuple(r.key, 0.0);
                    case SortColumn::Size: return std::make_tuple(std::string(), double(r.size));
                    case SortColumn::State: return std::make_tuple(std::string(entryStateName(r.state)), 0.0);
                    case SortColumn::LastAccess: return std::make_tuple(std::string(), r.lastAccess > 0 ? r.lastAccess : -1.0);   // NULL sorts first
                    default: return std::make_tuple(std::string(), r.created);
                    }
                };
                std::stable_sort(expected.begin(), expected.end(), [&](const EntryRow& a, const EntryRow& b) {
                    const auto ka = keyOf(a), kb = keyOf(b);
                    if (ka != kb)
                        return desc ? kb < ka : ka < kb;
                    return desc ? a.id > b.id : a.id < b.id;
                });
                // Page through in uneven pages, including the very end.
                std::vector<int64_t> got;
                for (uint64_t off = 0; off < n; off += 777)
                    for (const auto& r : store->listEntries({}, col, desc, off, 777))
                        got.push_back(r.id);
                QCOMPARE(got.size(), expected.size());
                for (size_t i = 0; i < got.size(); ++i)
                    QCOMPARE(got[i], expected[i].id);
            }
        }
        // Filters.
        QCOMPARE(store->countEntries(storetest::keyContains("real-")), uint64_t(2));
        QCOMPARE(store->countEntries(storetest::keyPrefix("synthetic/")), uint64_t(3000));
        QCOMPARE(store->countEntries(storetest::inState(EntryState::Unmerged)), uint64_t(2));
        QCOMPARE(store->countEntries(storetest::inScope("synthetic")), uint64_t(3000));
        const auto page = store->listEntries(storetest::keyContains("Linux"), SortColumn::Size, true, 0, 50);
        for (const auto& r : page)
            QVERIFY(r.key.find("Linux") != std::string::npos);
        const uint64_t linux = store->countEntries(storetest::keyContains("Linux"));
        QVERIFY(linux > 500 && linux < 1500);
        QCOMPARE(store->listEntries(storetest::keyContains("Linux"), SortColumn::Key, false, linux - 3, 10).size(), size_t(3));
    }

    void syntheticEntriesRestoreAndCheck()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        cs::Job job;
        job.start();
        cs::store::testing::generateSyntheticEntries(*store, 100000, job);
        QCOMPARE(store->countEntries({}), uint64_t(100000));
        // Rows near the end, by two sort orders.
        const auto tail = store->listEntries({}, SortColumn::LastAccess, true, 99990, 100);
        QCOMPARE(tail.size(), size_t(10));
        for (const auto& r : tail) {
            QVERIFY(r.synthetic);
            QCOMPARE(r.state, EntryState::Merged);
            QCOMPARE(r.scope, std::string("synthetic"));
            const QByteArray bytes = storetest::restore(*store, r.id);
            QCOMPARE(uint64_t(bytes.size()), r.size);
            QCOMPARE(storetest::sha256Hex(bytes), r.sha256);
        }
        QVERIFY(store->fsck(job).empty());
        const StoreStats st = store->stats(job);
        QCOMPARE(st.entries, uint64_t(100000));
        QVERIFY(st.dedupRatio > 1000);
        // Cancelled generation inserts nothing.
        cs::Job cancelled;
        cancelled.start();
        cancelled.cancel();
        {
            bool cancelledThrown = false;
            try {
                cs::store::testing::generateSyntheticEntries(*store, 5000, cancelled);
            } catch (const cs::Cancelled&) {
                cancelledThrown = true;
            }
            QVERIFY(cancelledThrown);
        }
        QCOMPARE(store->countEntries({}), uint64_t(100000));
    }

    void detailsOfAnEntry()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray shared = testsupport::randomBytes(4 << 20, 9);
        const QByteArray other = shared + testsupport::randomBytes(2 << 20, 10);
        const EntryRow a = storetest::upload(*store, "a", shared, 1 << 20, 2);
        const EntryRow b = storetest::upload(*store, "b", other, 1 << 20, 2);
        const EntryRow c = storetest::upload(*store, "c", shared, 1 << 20, 2);
        cs::Job job;
        job.start();
        const EntryDetails unmerged = store->entryDetails(a.id);
        QCOMPARE(unmerged.parts.size(), size_t(4));
        for (const auto& p : unmerged.parts) {
            QVERIFY(p.present);
            QCOMPARE(p.size, uint64_t(1 << 20));
        }
        QVERIFY(unmerged.objects.empty());
        for (int64_t id : {a.id, b.id, c.id})
            store->merge(id, job);
        const EntryDetails d = store->entryDetails(a.id);
        QVERIFY(d.treeError.empty());
        QCOMPARE(d.objects.front().kind, ObjectInfo::Node);
        QCOMPARE(d.objects.front().offset, d.entry.rootOffset);
        QCOMPARE(d.objects.front().logicalSize, uint64_t(shared.size()));
        uint64_t pos = 0;
        int sharedByBoth = 0;
        for (size_t i = 1; i < d.objects.size(); ++i) {
            const ObjectInfo& o = d.objects[i];
            QCOMPARE(o.kind, ObjectInfo::Chunk);
            QCOMPARE(o.position, pos);
            QVERIFY(o.offset < d.entry.rootOffset);
            QCOMPARE(o.sha256, storetest::sha256Hex(shared.mid(qsizetype(pos), qsizetype(o.logicalSize))));
            QVERIFY(o.sharedWith >= 1);   // c has exactly these bytes
            sharedByBoth += o.sharedWith == 2 ? 1 : 0;
            pos += o.logicalSize;
        }
        QCOMPARE(pos, uint64_t(shared.size()));
        QVERIFY(sharedByBoth >= 1);   // b shares the head
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreBrowseTest)
#include "tst_store_browse.moc"
