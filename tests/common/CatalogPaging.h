// The paging rows every catalog is walked over, and the walks: 1,234
// entries 'e-<i>' with key 'k<i % 300>', version 'v<i % 3>', updatedAt
// 1700000000000 + i % 97 and location 'loc-<i>' (folder 1000000000 + i),
// plus locations loc-1235..loc-1237 that no entry names. Ties on key, on key
// + version and on updatedAt exercise every cursor's tie-break. Each test
// writes these rows with its own database's SQL; the checks here read them
// back through ActionsCatalog and compare with the rows sorted and filtered
// in C++. Qt Test macros: after a call, return if QTest::currentTestFailed().
#pragma once
#include "core/actions-cache/ActionsBackend.h"

#include <QtTest>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace testsupport {

constexpr int kPagingEntries = 1234, kPagingLocations = 1237;

struct PagingRow {
    std::string key, version, id;
    int64_t updatedAt;
};

inline std::vector<PagingRow> pagingRows()
{
    std::vector<PagingRow> rows;
    for (int i = 1; i <= kPagingEntries; ++i)
        rows.push_back({"k" + std::to_string(i % 300), "v" + std::to_string(i % 3), "e-" + std::to_string(i),
                        1700000000000 + i % 97});
    return rows;
}

// The rows matching filter (A-Z and a-z alike), ids in order's order.
inline std::vector<std::string> pagingExpected(const std::string& filter, cs::actions::EntryOrder order)
{
    using cs::actions::EntryOrder;
    std::vector<PagingRow> want;
    for (const auto& r : pagingRows())
        if (r.key.find(cs::actions::asciiLower(filter)) != std::string::npos)
            want.push_back(r);
    std::sort(want.begin(), want.end(), [order](const PagingRow& a, const PagingRow& b) {
        switch (order) {
        case EntryOrder::KeyAscending: return std::tie(a.key, a.version, a.id) < std::tie(b.key, b.version, b.id);
        case EntryOrder::KeyDescending: return std::tie(a.key, a.version, a.id) > std::tie(b.key, b.version, b.id);
        case EntryOrder::UpdatedNewest: return std::tie(a.updatedAt, a.id) > std::tie(b.updatedAt, b.id);
        case EntryOrder::UpdatedOldest: return std::tie(a.updatedAt, a.id) < std::tie(b.updatedAt, b.id);
        default: break;   // the other orders come from the size index, not the catalog
        }
        return false;
    });
    std::vector<std::string> ids;
    for (const auto& r : want)
        ids.push_back(r.id);
    return ids;
}

// Walks a catalog page by page (keyset, default query), returning
// "key|version|id" in the order served.
inline std::vector<std::string> walkKeyOrder(cs::actions::ActionsCatalog& c, size_t limit, size_t* pages)
{
    std::vector<std::string> out;
    std::optional<cs::actions::EntryCursor> after;
    *pages = 0;
    for (;;) {
        const auto rows = c.entriesPage(after, limit);
        ++*pages;
        for (const auto& r : rows)
            out.push_back(r.key + "|" + r.version + "|" + r.id);
        if (rows.size() < limit)
            return out;
        after = cs::actions::EntryCursor{rows.back().key, rows.back().version, rows.back().id};
    }
}

// Every entry once, in (key, version, id) order, on pages of 100 and 1,234
// (a full last page is followed by an empty one), and the three locations
// without an entry.
inline void checkKeyOrderWalk(cs::actions::ActionsCatalog& c)
{
    std::vector<std::string> expected;
    for (const auto& id : pagingExpected("", cs::actions::EntryOrder::KeyAscending)) {
        const int i = std::stoi(id.substr(2));
        expected.push_back("k" + std::to_string(i % 300) + "|v" + std::to_string(i % 3) + "|" + id);
    }
    QCOMPARE(c.entryCount(), uint64_t(kPagingEntries));
    size_t pages = 0;
    QCOMPARE(walkKeyOrder(c, 100, &pages), expected);
    QCOMPARE(pages, size_t(13));
    QCOMPARE(walkKeyOrder(c, size_t(kPagingEntries), &pages), expected);
    QCOMPARE(pages, size_t(2));
    std::set<std::string> lonely;
    for (const auto& l : c.locationsWithoutEntry())
        lonely.insert(l.id);
    QCOMPARE(lonely, (std::set<std::string>{"loc-1235", "loc-1236", "loc-1237"}));
}

// Every order, with and without a key filter, on pages of 77, against the
// rows sorted and filtered here; and the matching count.
inline void checkEveryOrderAndFilter(cs::actions::ActionsCatalog& c)
{
    using cs::actions::EntryOrder;
    for (const std::string filter : {"", "k1", "K29", "k299", "none", "k_9", "%"}) {
        for (const EntryOrder order : {EntryOrder::KeyAscending, EntryOrder::KeyDescending, EntryOrder::UpdatedNewest,
                                       EntryOrder::UpdatedOldest}) {
            const std::vector<std::string> wantIds = pagingExpected(filter, order);
            const cs::actions::EntryQuery query{filter, order};
            std::vector<std::string> got;
            std::optional<cs::actions::EntryCursor> after;
            for (;;) {
                const auto page = c.entriesPage(query, after, 77);
                for (const auto& r : page)
                    got.push_back(r.id);
                if (page.size() < 77)
                    break;
                after = cs::actions::EntryCursor{page.back().key, page.back().version, page.back().id,
                                                 page.back().updatedAtMs};
            }
            QVERIFY2(got == wantIds, qPrintable(QString::fromStdString(c.describe() + " filter '" + filter + "' order ")
                                                + QString::number(int(order)) + ": " + QString::number(got.size())
                                                + " rows, wanted " + QString::number(wantIds.size())));
            QCOMPARE(c.entryCount(filter), uint64_t(wantIds.size()));
        }
    }
}

} // namespace testsupport
