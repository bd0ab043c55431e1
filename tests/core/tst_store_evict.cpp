// Eviction: by age, by last access (never-read entries count from their
// creation), down to a byte budget (least recently used first), by key;
// each dry run lists the same entries and changes nothing.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include <QDir>
#include <set>

using namespace cs::store;

namespace {

constexpr double kDay = 86400;

struct Fixture {
    QTemporaryDir tmp;
    std::unique_ptr<Store> store;
    std::vector<EntryRow> rows;     // e0..e4
    std::vector<QByteArray> data;
    double now = 2000000000;        // a fixed "now" for the policies

    Fixture()
    {
        store = Store::init(tmp.filePath("s").toStdString());
        cs::Job job;
        job.start();
        // created (days before now), last access (days before now, <0 never), merged?
        const double created[] = {10, 8, 6, 4, 2};
        const double access[] = {1, -1, 5, -1, 0.5};
        for (int i = 0; i < 5; ++i) {
            data.push_back(testsupport::randomBytes(100000 + i, uint64_t(i) + 1));
            EntryRow e = storetest::upload(*store, "key-" + std::to_string(i), data.back(), 30000, 2);
            if (i % 2 == 0)
                store->merge(e.id, job);
            const std::string last = access[i] < 0 ? "NULL" : std::to_string(now - access[i] * kDay);
            storetest::sql(store->catalogPath(), "UPDATE entries SET created=" + std::to_string(now - created[i] * kDay)
                                                     + ", last_access=" + last + " WHERE id=" + std::to_string(e.id));
            rows.push_back(*store->entry(e.id));
        }
    }

    std::set<std::string> keysOf(const EvictResult& r) const
    {
        std::set<std::string> k;
        for (const auto& e : r.evicted)
            k.insert(e.key);
        return k;
    }

    // Dry run, then the real thing: same entries; dry run changes nothing.
    std::set<std::string> run(EvictPolicy p)
    {
        cs::Job job;
        job.start();
        p.now = now;
        p.dryRun = true;
        const uint64_t before = store->countEntries({});
        const EvictResult dry = store->evict(p, job);
        if (!dry.dryRun || store->countEntries({}) != before)
            return {"dry run changed the store"};
        for (const auto& e : rows)
            if (store->entry(e.id) && store->entry(e.id)->state == EntryState::Unmerged && !QDir(QString::fromStdString(store->dir() + "/parts/" + std::to_string(e.id))).exists())
                return {"dry run removed parts"};
        p.dryRun = false;
        const EvictResult real = store->evict(p, job);
        if (keysOf(real) != keysOf(dry))
            return {"dry run and eviction differ"};
        uint64_t bytes = 0;
        for (const auto& e : real.evicted) {
            bytes += e.size;
            if (store->entry(e.id))
                return {"evicted entry still there"};
            if (QDir(QString::fromStdString(store->dir() + "/parts/" + std::to_string(e.id))).exists())
                return {"evicted entry's parts still there"};
        }
        if (bytes != real.bytes || store->countEntries({}) != before - real.evicted.size())
            return {"wrong totals"};
        // What remains restores.
        for (size_t i = 0; i < rows.size(); ++i)
            if (store->entry(rows[i].id) && storetest::restore(*store, rows[i].id) != data[i])
                return {"a remaining entry no longer restores"};
        return keysOf(real);
    }
};

using Keys = std::set<std::string>;

} // namespace

class StoreEvictTest : public QObject {
    Q_OBJECT

private slots:
    void byAge()
    {
        Fixture f;
        EvictPolicy p;
        p.olderThanSeconds = 5 * kDay;
        QCOMPARE(f.run(p), (Keys{"key-0", "key-1", "key-2"}));
    }

    void byLastAccess()
    {
        Fixture f;
        EvictPolicy p;
        p.unusedForSeconds = 3 * kDay;
        // key-0 read 1 day ago stays; key-1 never read, created 8 days ago; key-2
        // read 5 days ago; key-3 never read, created 4 days ago; key-4 read recently.
        QCOMPARE(f.run(p), (Keys{"key-1", "key-2", "key-3"}));
    }

    void downToAByteBudget()
    {
        Fixture f;
        uint64_t total = 0;
        for (const auto& e : f.rows)
            total += e.size;
        EvictPolicy p;
        p.maxBytes = total - f.rows[1].size - 1;   // dropping the least recently used one is not enough
        // LRU order by last access, never-read by creation: key-1 (8d), key-2 (5d),
        // key-3 (4d), key-0 (1d), key-4 (0.5d).
        QCOMPARE(f.run(p), (Keys{"key-1", "key-2"}));
        EvictPolicy q;
        q.maxBytes = 0;
        QCOMPARE(f.run(q), (Keys{"key-0", "key-3", "key-4"}));
    }

    void byKeyAndCombined()
    {
        Fixture f;
        EvictPolicy p;
        p.keys = {"key-3", "no-such-key"};
        QCOMPARE(f.run(p), (Keys{"key-3"}));
        EvictPolicy q;
        q.keys = {"key-4"};
        q.olderThanSeconds = 9 * kDay;
        QCOMPARE(f.run(q), (Keys{"key-0", "key-4"}));
    }

    void evictionKeepsSharedPackBytes()
    {
        QTemporaryDir tmp;
        auto store = Store::init(tmp.filePath("s").toStdString());
        const QByteArray data = testsupport::randomBytes(3 << 20, 5);
        cs::Job job;
        job.start();
        const EntryRow a = storetest::upload(*store, "a", data, 1 << 20, 2);
        store->merge(a.id, job);
        const EntryRow b = storetest::upload(*store, "b", data, 1 << 20, 2);
        store->merge(b.id, job);
        const uint64_t pack = store->stats(job).packBytes;
        EvictPolicy p;
        p.keys = {"a"};
        QCOMPARE(store->evict(p, job).evicted.size(), size_t(1));
        QCOMPARE(store->stats(job).packBytes, pack);   // GC reclaims, not eviction
        QCOMPARE(storetest::restore(*store, b.id), data);
    }
};

CACHESCOPE_CORE_TEST_MAIN(StoreEvictTest)
#include "tst_store_evict.moc"
