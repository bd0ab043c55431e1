// entriesReaching() and objectHolding() against brute force: every object of
// every live entry's tree (Store::entryDetails) and every byte of every object.
#include "common/TestSupport.h"

#include "core/gc/EntriesReaching.h"
#include "core/gc/Gc.h"
#include "core/pack/Pack.h"
#include "core/store/Store.h"

#include <map>
#include <set>

using namespace cs;

class TestGcReaching : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesBruteForce();
    void objectHoldingEveryByte();
    void emptyAfterEviction();

private:
    // Entries sharing content: odd ones start with the same 2.5 MiB (chunks
    // average 1 MiB, so the first ones are shared), then a distinct tail.
    std::unique_ptr<store::Store> makeStore(const QString& dir, int entries)
    {
        auto s = store::Store::init(dir.toStdString());
        const QByteArray shared = testsupport::randomBytes(2500000, 7);
        for (int i = 0; i < entries; ++i) {
            const QString file = dir + QStringLiteral("/in%1").arg(i);
            const QByteArray data = (i % 2 ? shared : QByteArray()) + testsupport::randomBytes(150000 + 20000 * i, 100 + i);
            if (!testsupport::writeFile(file, data))
                qFatal("cannot write the input");
            Job job;
            s->putFile("key-" + std::to_string(i), file.toStdString(), job);
        }
        Job job;
        s->mergeAll(job);
        return s;
    }

    // offset -> ids of the entries whose tree holds it, from entryDetails.
    std::map<uint64_t, std::set<int64_t>> bruteForce(store::Store& s)
    {
        std::map<uint64_t, std::set<int64_t>> reach;
        store::EntryFilter f;
        f.state = store::EntryState::Merged;
        for (const auto& e : s.listEntries(f, store::SortColumn::Id, false, 0, 1000)) {
            const auto det = s.entryDetails(e.id);
            if (!det.treeError.empty())
                qFatal("tree error: %s", det.treeError.c_str());
            for (const auto& o : det.objects)
                reach[o.offset].insert(e.id);
        }
        return reach;
    }
};

void TestGcReaching::matchesBruteForce()
{
    QTemporaryDir tmp;
    auto s = makeStore(tmp.path(), 6);
    Job job;
    store::EvictPolicy p;
    p.keys = {"key-2"};
    s->evict(p, job);
    const auto truth = bruteForce(*s);
    QVERIFY(truth.size() > 6);
    bool sawShared = false;
    for (const auto& [offset, ids] : truth) {
        Job j;
        const auto r = gc::entriesReaching(tmp.path().toStdString(), offset, 1000, j);
        std::set<int64_t> got;
        for (const auto& e : r.entries) {
            got.insert(e.id);
            QVERIFY(e.depth >= 0);
            QCOMPARE(e.depth == 0, e.rootOffset == offset);
        }
        QCOMPARE(got, ids);
        QCOMPARE(r.total, uint64_t(ids.size()));
        QCOMPARE(r.unreadable, uint64_t(0));
        sawShared = sawShared || ids.size() > 1;
        // A limit keeps the first entries by id and still counts all of them.
        Job j2;
        const auto one = gc::entriesReaching(tmp.path().toStdString(), offset, 1, j2);
        QCOMPARE(one.entries.size(), size_t(1));
        QCOMPARE(one.entries.front().id, *ids.begin());
        QCOMPARE(one.total, uint64_t(ids.size()));
    }
    QVERIFY(sawShared);
}

void TestGcReaching::objectHoldingEveryByte()
{
    QTemporaryDir tmp;
    auto s = makeStore(tmp.path(), 3);
    const auto pack = pack::Pack::open((tmp.path() + "/pack").toStdString(), false);
    const uint64_t end = pack->end();
    uint64_t at = 0;
    int objects = 0;
    while (at < end) {
        const auto h = pack->readHeader(at);
        for (uint64_t o : {at, at + 1, at + h.totalBytes / 2, at + h.totalBytes - 1})
            QCOMPARE(gc::objectHolding(*pack, 0, o).offset, at);
        at += h.totalBytes;
        ++objects;
    }
    QCOMPARE(at, end);
    QVERIFY(objects > 3);
    auto throws = [&](uint64_t start, uint64_t offset) {
        try {
            gc::objectHolding(*pack, start, offset);
        } catch (const std::exception&) {
            return true;
        }
        return false;
    };
    QVERIFY(throws(0, end));
    QVERIFY(throws(10, 5));
}

void TestGcReaching::emptyAfterEviction()
{
    QTemporaryDir tmp;
    auto s = makeStore(tmp.path(), 2);
    const auto before = bruteForce(*s);
    Job job;
    store::EvictPolicy p;
    p.keys = {"key-0", "key-1"};
    s->evict(p, job);
    for (const auto& [offset, ids] : before) {
        Job j;
        const auto r = gc::entriesReaching(tmp.path().toStdString(), offset, 10, j);
        QCOMPARE(r.total, uint64_t(0));
        QVERIFY(r.entries.empty());
    }
    // After a GC the collected objects cannot be read; no entry reaches them either.
    Job g;
    const auto res = gc::collectStoreGarbage(tmp.path().toStdString(), {}, g);
    QVERIFY(res.stats.reclaimedBytes > 0);
    Job j;
    QCOMPARE(gc::entriesReaching(tmp.path().toStdString(), before.begin()->first, 10, j).total, uint64_t(0));
}

CACHESCOPE_CORE_TEST_MAIN(TestGcReaching)
#include "tst_gc_reaching.moc"
