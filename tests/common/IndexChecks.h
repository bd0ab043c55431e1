// The size index's orders and filters over every entry, checked against an
// ActionsCacheFixture's own rows and bytes, on whatever layout the cache
// was opened on (SQLite, PostgreSQL or MySQL rows; files, S3 or GCS
// objects). Pages of 2, so that an order or a filter must hold across
// pages, and entryCount must agree with the pages. Call after
// refreshIndex(); on a failure the QTest macros return from the helper, so
// the caller checks QTest::currentTestFailed().
#pragma once
#include "common/ActionsCacheFixture.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/EntryFilterText.h"
#include "core/actions-cache/SizeIndex.h"

#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <memory>

#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace testsupport {

inline std::vector<cs::actions::ActionsEntry> walkQuery(cs::actions::ActionsCache& cache,
                                                        const cs::actions::EntryQuery& q)
{
    std::vector<cs::actions::ActionsEntry> all;
    std::optional<cs::actions::EntryCursor> after;
    do {
        auto page = cache.entriesPage(q, after, 2);
        all.insert(all.end(), page.entries.begin(), page.entries.end());
        after = page.next;
    } while (after);
    return all;
}

// Every index order gives every entry once, sorted by its value (and the
// key order, served by the index when a scope is set).
inline void checkEveryIndexOrder(cs::actions::ActionsCache& cache, const ActionsCacheFixture& f)
{
    using namespace cs::actions;
    for (EntryOrder o : {EntryOrder::SizeLargest, EntryOrder::SizeSmallest, EntryOrder::PartsMost,
                         EntryOrder::PartsFewest, EntryOrder::StateAscending, EntryOrder::StateDescending,
                         EntryOrder::LastUsedNewest, EntryOrder::LastUsedOldest, EntryOrder::KeyAscending}) {
        EntryQuery q;
        q.order = o;
        q.scope = "refs/heads/main";   // through the index, as every fixture entry is on main
        const auto all = walkQuery(cache, q);
        QCOMPARE(all.size(), size_t(f.entries().size()));
        std::set<std::string> ids;
        for (const auto& e : all)
            ids.insert(e.id);
        QCOMPARE(ids.size(), all.size());
        auto value = [o](const ActionsEntry& e) -> int64_t {
            switch (o) {
            case EntryOrder::SizeLargest: case EntryOrder::SizeSmallest: return int64_t(e.size);
            case EntryOrder::PartsMost: case EntryOrder::PartsFewest: return e.partCount;
            case EntryOrder::StateAscending: case EntryOrder::StateDescending: return int64_t(e.state);
            case EntryOrder::LastUsedNewest: case EntryOrder::LastUsedOldest:
                return e.lastDownloadedAtMs.value_or(e.updatedAtMs);
            default: return 0;
            }
        };
        const bool desc = o == EntryOrder::SizeLargest || o == EntryOrder::PartsMost
                          || o == EntryOrder::StateDescending || o == EntryOrder::LastUsedNewest;
        for (size_t i = 1; i < all.size(); ++i)
            QVERIFY2(o == EntryOrder::KeyAscending ? all[i - 1].key <= all[i].key
                     : desc ? value(all[i - 1]) >= value(all[i]) : value(all[i - 1]) <= value(all[i]),
                     qPrintable(QString("order %1 at row %2").arg(int(o)).arg(i)));
        QCOMPARE(cache.entryCount(q), uint64_t(f.entries().size()));
    }
    // The sizes are the files' (the fixture's bytes), whatever holds them.
    for (const auto& fe : f.entries()) {
        EntryQuery q;
        q.order = EntryOrder::SizeLargest;
        q.keyPrefix = fe.key.toStdString();
        const auto rows = walkQuery(cache, q);
        QCOMPARE(rows.size(), size_t(1));
        QCOMPARE(rows[0].size, uint64_t(fe.size));
    }
}

// Size, parts and state filters, each with a threshold at every fixture
// entry, in an index order and in the catalog's key order; and the same
// filters typed as text (EntryFilterText.h), as the GUI's filter field
// reads them.
inline void checkEveryIndexFilter(cs::actions::ActionsCache& cache, const ActionsCacheFixture& f)
{
    using namespace cs::actions;
    auto keysOf = [&](const EntryQuery& q) {
        std::multiset<std::string> keys;
        for (const auto& e : walkQuery(cache, q))
            keys.insert(e.key);
        if (cache.entryCount(q) != uint64_t(keys.size()))
            keys.insert("(entryCount differs from the pages)");
        return keys;
    };
    auto expected = [&](auto keep) {
        std::multiset<std::string> keys;
        for (const auto& fe : f.entries())
            if (keep(fe))
                keys.insert(fe.key.toStdString());
        return keys;
    };
    auto typed = [&](const QString& text, EntryOrder o) {
        EntryQuery base;
        base.order = o;
        const auto parsed = parseEntryFilterText(text.toStdString(), base);
        if (!parsed.error.empty())
            return std::multiset<std::string>{"(refused: " + parsed.error + ")"};
        return keysOf(parsed.query);
    };
    size_t nonTrivial = 0;
    for (const auto& pivot : f.entries()) {
        for (EntryOrder o : {EntryOrder::SizeLargest, EntryOrder::KeyAscending}) {
            EntryQuery atLeast;
            atLeast.order = o;
            atLeast.minSize = uint64_t(pivot.size);
            const auto want = expected([&](const auto& fe) { return fe.size >= pivot.size; });
            QCOMPARE(keysOf(atLeast), want);
            QCOMPARE(typed(QString("size>=%1").arg(pivot.size), o), want);
            QCOMPARE(typed(QString("size>%1").arg(pivot.size), o),
                     expected([&](const auto& fe) { return fe.size > pivot.size; }));
            EntryQuery atMost;
            atMost.order = o;
            atMost.maxSize = uint64_t(pivot.size);
            const auto wantAtMost = expected([&](const auto& fe) { return fe.size <= pivot.size; });
            QCOMPARE(keysOf(atMost), wantAtMost);
            QCOMPARE(typed(QString("size<=%1").arg(pivot.size), o), wantAtMost);
            QCOMPARE(typed(QString("size<%1").arg(pivot.size), o),
                     expected([&](const auto& fe) { return fe.size < pivot.size; }));
            EntryQuery parts;
            parts.order = o;
            parts.minParts = pivot.partCount;
            parts.maxParts = pivot.partCount;
            const auto wantParts = expected([&](const auto& fe) { return fe.partCount == pivot.partCount; });
            QCOMPARE(keysOf(parts), wantParts);
            QCOMPARE(typed(QString("parts=%1").arg(pivot.partCount), o), wantParts);
            if (want.size() != size_t(f.entries().size()))
                ++nonTrivial;
        }
    }
    QVERIFY(nonTrivial > 0);   // some threshold really drops entries
    for (EntryState st : {EntryState::Unmerged, EntryState::MergeStarted, EntryState::Merged, EntryState::PartsDeleted}) {
        EntryQuery q;
        q.order = EntryOrder::PartsMost;
        q.stateMask = 1u << unsigned(st);
        const auto want = expected([&](const auto& fe) { return fe.state == entryStateName(st); });
        QCOMPARE(keysOf(q), want);
        QCOMPARE(typed(QString("state:%1").arg(QString(entryStateName(st)).replace(' ', '-')), EntryOrder::KeyAscending),
                 want);
    }
    EntryQuery both;
    both.stateMask = (1u << unsigned(EntryState::Merged)) | (1u << unsigned(EntryState::Unmerged));
    both.minSize = 1;
    const auto wantBoth = expected([&](const auto& fe) {
        return (fe.state == "merged" || fe.state == "unmerged") && fe.size >= 1;
    });
    QCOMPARE(keysOf(both), wantBoth);
    QCOMPARE(typed("state:merged,unmerged size>0", EntryOrder::SizeSmallest), wantBoth);
    // Text and fields together: the key words and the index filters.
    const auto& first = f.entries().front();
    const QString word = first.key.left(first.key.size() - 1);
    QCOMPARE(typed(QString("%1 size>=%2").arg(word).arg(first.size), EntryOrder::KeyAscending),
             expected([&](const auto& fe) {
                 return fe.key.contains(word, Qt::CaseInsensitive) && fe.size >= first.size;
             }));
}

// The whole check on one layout: a first scan into a temporary cache
// folder (XDG_CACHE_HOME, put back after), then every order and filter.
// Returns the cache for more checks by the caller (nullptr on a failure).
inline std::unique_ptr<cs::actions::ActionsCache>
checkIndexOnLayout(const std::function<std::unique_ptr<cs::actions::ActionsCache>()>& open, const ActionsCacheFixture& f,
                   QTemporaryDir& cacheHome)
{
    qputenv("XDG_CACHE_HOME", cacheHome.path().toUtf8());
    auto cache = open();
    cache->refreshIndex();
    if (!QString::fromStdString(cache->sizeIndex().path()).startsWith(cacheHome.path())) {
        QTest::qFail("the size index is not in the cache folder", __FILE__, __LINE__);
        return nullptr;
    }
    checkEveryIndexOrder(*cache, f);
    if (!QTest::currentTestFailed())
        checkEveryIndexFilter(*cache, f);
    return QTest::currentTestFailed() ? nullptr : std::move(cache);
}

// XDG_CACHE_HOME as it was, when the scope ends.
struct SavedCacheHome {
    QByteArray saved = qgetenv("XDG_CACHE_HOME");
    ~SavedCacheHome() { qputenv("XDG_CACHE_HOME", saved); }
};

} // namespace testsupport
