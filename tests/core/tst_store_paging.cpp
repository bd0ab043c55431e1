// Keyset paging of the store browser (Store::listEntriesAfter, page anchors):
// for every sort column, both directions, with and without filters, pages at
// random rows equal the rows of a full sort computed here from every entry
// (ties on the sort value broken by id, NULL last access first ascending).
// Anchors built before the catalog changed (in this connection, another
// connection, or by a restore) are detected and still give the current rows.
// `store ls` pages by seeking after the last id.
#include "common/TestSupport.h"
#include "StoreTestSupport.h"

#include "core/store/StoreTesting.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <random>
#include <tuple>

using namespace cs::store;

namespace {

constexpr SortColumn kColumns[] = {SortColumn::Id,    SortColumn::Key,   SortColumn::Version,
                                   SortColumn::Scope, SortColumn::Size,  SortColumn::State,
                                   SortColumn::Parts, SortColumn::Created, SortColumn::LastAccess};

const char* nameOf(SortColumn c)
{
    switch (c) {
    case SortColumn::Id: return "id";
    case SortColumn::Key: return "key";
    case SortColumn::Version: return "version";
    case SortColumn::Scope: return "scope";
    case SortColumn::Size: return "size";
    case SortColumn::State: return "state";
    case SortColumn::Parts: return "parts";
    case SortColumn::Created: return "created";
    case SortColumn::LastAccess: return "last_access";
    }
    return "?";
}

bool passes(const EntryRow& r, const EntryFilter& f)
{
    if (!f.keyContains.empty() && r.key.find(f.keyContains) == std::string::npos)
        return false;
    if (!f.keyPrefix.empty() && r.key.compare(0, f.keyPrefix.size(), f.keyPrefix) != 0)
        return false;
    if (f.state && r.state != *f.state)
        return false;
    if (f.version && r.version != *f.version)
        return false;
    if (f.scope && r.scope != *f.scope)
        return false;
    return true;
}

// The listing computed from every row: std::string compares bytes as unsigned
// char like SQLite's BINARY collation; a never-read entry (lastAccess 0) is NULL.
std::vector<int64_t> truth(const std::vector<EntryRow>& all, const EntryFilter& f, SortColumn col, bool desc)
{
    std::vector<EntryRow> rows;
    for (const auto& r : all)
        if (passes(r, f))
            rows.push_back(r);
    using Key = std::tuple<int, double, std::string>;   // (not null, number, text)
    auto keyOf = [&](const EntryRow& r) -> Key {
        switch (col) {
        case SortColumn::Id: return {1, 0.0, {}};
        case SortColumn::Key: return {1, 0.0, r.key};
        case SortColumn::Version: return {1, 0.0, r.version};
        case SortColumn::Scope: return {1, 0.0, r.scope};
        case SortColumn::Size: return {1, double(r.size), {}};
        case SortColumn::State: return {1, 0.0, entryStateName(r.state)};
        case SortColumn::Parts: return {1, double(r.partCount), {}};
        case SortColumn::Created: return {1, r.created, {}};
        case SortColumn::LastAccess: return {r.lastAccess > 0 ? 1 : 0, r.lastAccess, {}};
        }
        return {};
    };
    std::sort(rows.begin(), rows.end(), [&](const EntryRow& a, const EntryRow& b) {
        const Key ka = keyOf(a), kb = keyOf(b);
        if (ka != kb)
            return desc ? kb < ka : ka < kb;
        return desc ? a.id > b.id : a.id < b.id;
    });
    std::vector<int64_t> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    return ids;
}

std::vector<int64_t> idsOf(const std::vector<EntryRow>& rows)
{
    std::vector<int64_t> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    return ids;
}

std::vector<int64_t> slice(const std::vector<int64_t>& ids, uint64_t offset, uint64_t limit)
{
    if (offset >= ids.size())
        return {};
    return {ids.begin() + long(offset), ids.begin() + long(std::min<uint64_t>(ids.size(), offset + limit))};
}

std::vector<EntryRow> everyRow(const Store& store)
{
    return store.listEntries({}, SortColumn::Id, false, 0, 1u << 30);
}

// A store of synthetic rows plus real entries made to tie on every column.
std::unique_ptr<Store> makeStore(const QString& dir, uint64_t synthetic)
{
    auto store = Store::init(dir.toStdString());
    cs::Job job;
    job.start();
    cs::store::testing::generateSyntheticEntries(*store, synthetic, job);
    const QByteArray same = testsupport::randomBytes(3000, 7);
    std::vector<int64_t> real;
    for (int i = 0; i < 12; ++i) {
        // Equal sizes, versions and scopes; odd bytes in some keys (NUL, 0xFF, a
        // prefix of another key).
        std::string key = "real-" + std::to_string(i % 6);
        if (i >= 6)
            key += i % 2 ? std::string("\0x", 2) : std::string("\xff\xfe");
        real.push_back(storetest::upload(*store, key, same, 1000, 2, i % 3 ? "v1" : "v2", i % 2 ? "main" : "").id);
    }
    for (size_t i = 0; i < real.size(); i += 2)
        store->merge(real[i], job);
    for (size_t i = 0; i < real.size(); i += 3)
        storetest::restore(*store, real[i]);
    // Ties on created and last access among real and synthetic rows.
    const std::string db = store->catalogPath();
    storetest::sql(db, "UPDATE entries SET created = 1700000000 WHERE key LIKE 'real-%' AND id % 2 = 0");
    storetest::sql(db, "UPDATE entries SET created = (SELECT created FROM entries WHERE id = 10) WHERE id % 97 = 0");
    storetest::sql(db, "UPDATE entries SET last_access = 1700000500 WHERE id % 89 = 0");
    return store;
}

} // namespace

class StorePagingTest : public QObject {
    Q_OBJECT

private slots:
    void pagesEqualAFullSort()
    {
        QTemporaryDir tmp;
        auto store = makeStore(tmp.filePath("s"), 2500);
        const auto all = everyRow(*store);
        QVERIFY(all.size() > 2500);
        std::vector<EntryFilter> filters(5);
        filters[1].keyContains = "macOS";
        filters[2].keyPrefix = "real-";
        filters[3].state = EntryState::Merged;
        filters[4].version = "v1";
        filters[4].keyContains = "real";
        std::mt19937_64 rng(42);
        cs::Job job;
        job.start();
        for (const EntryFilter& f : filters) {
            for (SortColumn col : kColumns) {
                for (bool desc : {false, true}) {
                    const auto expected = truth(all, f, col, desc);
                    const QByteArray what = QByteArray(nameOf(col)) + (desc ? " desc" : "") + " filter "
                                            + QByteArray::fromStdString(f.keyContains + "|" + f.keyPrefix);
                    // An odd stride, so pages start anywhere between anchors.
                    const PageAnchors anchors = store->buildPageAnchors(f, col, desc, job, 37);
                    QVERIFY2(anchors.rows == expected.size(), what.constData());
                    QCOMPARE(anchors.keys.size(), expected.size() / 37);
                    std::vector<uint64_t> offsets = {0, 1, 36, 37, 38, 73, 74};
                    if (!expected.empty())
                        offsets.insert(offsets.end(), {expected.size() - 1, expected.size(), expected.size() + 5});
                    for (int i = 0; i < 12; ++i)
                        offsets.push_back(expected.empty() ? 0 : rng() % expected.size());
                    for (uint64_t off : offsets) {
                        const uint64_t limit = 1 + rng() % 120;
                        bool stale = true;
                        const auto page = idsOf(store->listEntries(anchors, off, limit, &stale));
                        QVERIFY2(!stale, what.constData());
                        QVERIFY2(page == slice(expected, off, limit),
                                 (what + " offset " + QByteArray::number(off)).constData());
                        QVERIFY2(idsOf(store->listEntries(f, col, desc, off, limit)) == slice(expected, off, limit),
                                 what.constData());
                    }
                    // Walking the whole listing page after page by the last row's key.
                    std::vector<int64_t> walked;
                    std::optional<SortKey> after;
                    for (;;) {
                        const auto page = store->listEntriesAfter(f, col, desc, after ? &*after : nullptr, 0, 211);
                        for (const auto& r : page)
                            walked.push_back(r.id);
                        if (page.size() < 211)
                            break;
                        // The last row's key is an anchor's key when it sits at a stride boundary.
                        const uint64_t row = walked.size() - 1;
                        if ((row + 1) % 37 == 0) {
                            after = anchors.keys[(row + 1) / 37 - 1];
                            QCOMPARE(after->id, walked.back());
                        } else {
                            const auto a = store->buildPageAnchors(f, col, desc, job, row + 1);
                            QVERIFY(!a.keys.empty());
                            after = a.keys.front();
                            QCOMPARE(after->id, walked.back());
                        }
                    }
                    QVERIFY2(walked == expected, what.constData());
                    // Skipping past segment ends (ties, then the greater values).
                    if (expected.size() > 40) {
                        const SortKey& k = anchors.keys[0];   // row 36
                        for (uint64_t skip : {uint64_t(0), uint64_t(3), uint64_t(expected.size() - 40), uint64_t(expected.size())}) {
                            const auto page = idsOf(store->listEntriesAfter(f, col, desc, &k, skip, 30));
                            QVERIFY2(page == slice(expected, 37 + skip, 30), what.constData());
                        }
                    }
                }
            }
        }
    }

    void staleAnchorsAreDetected()
    {
        QTemporaryDir tmp;
        auto store = makeStore(tmp.filePath("s"), 2000);
        auto other = Store::open(tmp.filePath("s").toStdString());   // a second connection, like another process
        cs::Job job;
        job.start();
        const EntryFilter none;
        auto check = [&](const PageAnchors& a, bool expectStale) {
            const auto expected = truth(everyRow(*store), a.filter, a.sort, a.descending);
            for (uint64_t off : {uint64_t(0), uint64_t(300), uint64_t(1000), uint64_t(1990), uint64_t(2100)}) {
                bool stale = !expectStale;
                const auto page = idsOf(store->listEntries(a, off, 64, &stale));
                QCOMPARE(stale, expectStale);
                QVERIFY(page == slice(expected, off, 64));
            }
        };
        const PageAnchors bySize = store->buildPageAnchors(none, SortColumn::Size, true, job, 100);
        const PageAnchors byAccess = store->buildPageAnchors(none, SortColumn::LastAccess, false, job, 100);
        const PageAnchors byKey = store->buildPageAnchors(storetest::keyContains("Linux"), SortColumn::Key, false, job, 100);
        check(bySize, false);
        check(byAccess, false);

        // A restore moves only last_access: listings by size stay valid.
        storetest::restore(*other, everyRow(*store)[5].id);
        check(bySize, false);
        check(byKey, false);
        check(byAccess, true);

        // Rows inserted by another connection shift every later row.
        cs::store::testing::generateSyntheticEntries(*other, 150, job);
        check(bySize, true);
        check(byKey, true);

        // Rows deleted and changed behind the store's back (raw SQL, another connection).
        const PageAnchors fresh = store->buildPageAnchors(none, SortColumn::Created, false, job, 100);
        check(fresh, false);
        QVERIFY(storetest::sql(store->catalogPath(), "DELETE FROM entries WHERE id % 7 = 3"));
        check(fresh, true);
        const PageAnchors afterDelete = store->buildPageAnchors(none, SortColumn::Created, false, job, 100);
        check(afterDelete, false);
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE entries SET created = created - 1e6 WHERE id % 11 = 0"));
        check(afterDelete, true);

        // A change in this very connection (an upload) too.
        const PageAnchors byState = store->buildPageAnchors(none, SortColumn::State, false, job, 100);
        check(byState, false);
        storetest::upload(*store, "late", testsupport::randomBytes(100, 9), 100, 1);
        check(byState, true);
        // A no-op update does not invalidate.
        const PageAnchors again = store->buildPageAnchors(none, SortColumn::State, false, job, 100);
        QVERIFY(storetest::sql(store->catalogPath(), "UPDATE entries SET size = size WHERE id < 50"));
        check(again, false);
    }

    void cancelledBuildThrows()
    {
        QTemporaryDir tmp;
        auto store = makeStore(tmp.filePath("s"), 70000);
        cs::Job job;
        job.start();
        job.cancel();
        STORE_VERIFY_THROWS(cs::Cancelled, store->buildPageAnchors({}, SortColumn::Key, false, job));
    }

    void storeLsSeeksPageAfterPage()
    {
        // `store ls` reads pages of 10,000 by id, each after the last id seen:
        // every row exactly once, in id order, also across holes in the ids.
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        {
            auto store = Store::init(dir);
            cs::Job job;
            job.start();
            cs::store::testing::generateSyntheticEntries(*store, 23000, job);
        }
        QVERIFY(storetest::sql(dir + "/catalog.db", "DELETE FROM entries WHERE id BETWEEN 9990 AND 10020 OR id % 1000 = 0"));
        auto store = Store::open(dir);
        const auto ls = testsupport::cli({"store", "ls", QString::fromStdString(dir), "--json"});
        QCOMPARE(ls.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(ls.out).array();
        const auto truth = everyRow(*store);
        QCOMPARE(size_t(rows.size()), truth.size());
        for (size_t i = 0; i < truth.size(); ++i)
            QCOMPARE(int64_t(rows[qsizetype(i)].toObject()["id"].toDouble()), truth[i].id);
    }

    void oldCatalogGetsTheCounters()
    {
        // A catalog of schema 1 (no entries_generation) is migrated on open.
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("s").toStdString();
        {
            auto store = Store::init(dir);
            cs::Job job;
            job.start();
            cs::store::testing::generateSyntheticEntries(*store, 10, job);
        }
        const std::string db = dir + "/catalog.db";
        QVERIFY(storetest::sql(db, "DROP TABLE entries_generation; DROP TRIGGER entries_generation_insert; "
                                   "DROP TRIGGER entries_generation_delete; DROP TRIGGER entries_generation_update; "
                                   "DROP TRIGGER entries_generation_access; ALTER TABLE parts DROP COLUMN crc32c; "
                                   // schema 5's repo and origin and schema 6's merge_error go too, so
                                   // every later migration runs
                                   "DROP INDEX entries_origin; DROP INDEX entries_committed_unique; "
                                   "ALTER TABLE entries DROP COLUMN origin; ALTER TABLE entries DROP COLUMN repo; "
                                   "ALTER TABLE entries DROP COLUMN merge_error; "
                                   "CREATE UNIQUE INDEX entries_committed_unique ON entries(key, version, scope) "
                                   "WHERE state <> 'uploading'; "
                                   "UPDATE meta SET value='1' WHERE key='schema_version'"));
        auto store = Store::open(dir);
        QCOMPARE(store->schemaVersion(), Store::latestSchemaVersion());
        cs::Job job;
        job.start();
        const PageAnchors a = store->buildPageAnchors({}, SortColumn::Id, false, job, 3);
        QCOMPARE(a.rows, uint64_t(10));
        QVERIFY(storetest::sql(db, "DELETE FROM entries WHERE id = 2"));
        bool stale = false;
        QCOMPARE(store->listEntries(a, 3, 2, &stale).front().id, int64_t(5));
        QVERIFY(stale);
    }
};

CACHESCOPE_CORE_TEST_MAIN(StorePagingTest)
#include "tst_store_paging.moc"
