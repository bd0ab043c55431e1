// The size index's queries (SizeIndex.h): entry pages in any EntryOrder
// with the query's filters, counts, the id-ordered walk and the groups.
// Everything is SQL over the index file; memory is one page.
#include "core/actions-cache/SizeIndex.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Sqlite.h"

#include <algorithm>
#include <cstdint>

namespace cs::actions {

namespace {

using sqlite::Statement;

std::string orderColumn(EntryOrder o)
{
    switch (o) {
    case EntryOrder::SizeLargest:
    case EntryOrder::SizeSmallest: return "size";
    case EntryOrder::PartsMost:
    case EntryOrder::PartsFewest: return "part_count";
    case EntryOrder::StateAscending:
    case EntryOrder::StateDescending: return "state";
    case EntryOrder::LastUsedNewest:
    case EntryOrder::LastUsedOldest: return "last_used";
    case EntryOrder::UpdatedNewest:
    case EntryOrder::UpdatedOldest: return "updated_at";
    case EntryOrder::KeyAscending:
    case EntryOrder::KeyDescending: return "key";
    }
    return "key";
}

bool descendingOrder(EntryOrder o)
{
    return o == EntryOrder::KeyDescending || o == EntryOrder::UpdatedNewest || o == EntryOrder::SizeLargest
           || o == EntryOrder::PartsMost || o == EntryOrder::StateDescending || o == EntryOrder::LastUsedNewest;
}

const char* const kEntryColumns =
    "id, key, version, scope, repo_id, updated_at, location_id, has_location, folder, part_count, merge_started_at, "
    "merged_at, parts_deleted_at, last_downloaded_at, state, size, parts_present, part_bytes, merged_present, error";

std::optional<int64_t> optAt(const Statement& s, int c)
{
    if (s.isNull(c))
        return std::nullopt;
    return s.i64(c);
}

ActionsEntry entryAt(const Statement& s)
{
    ActionsEntry e;
    e.id = s.text(0);
    e.key = s.text(1);
    e.version = s.text(2);
    e.scope = s.text(3);
    e.repoId = s.text(4);
    e.updatedAtMs = s.i64(5);
    e.locationId = s.text(6);
    e.hasLocation = s.i64(7) != 0;
    e.folderName = s.text(8);
    e.partCount = s.i64(9);
    e.mergeStartedAtMs = optAt(s, 10);
    e.mergedAtMs = optAt(s, 11);
    e.partsDeletedAtMs = optAt(s, 12);
    e.lastDownloadedAtMs = optAt(s, 13);
    e.state = EntryState(s.i64(14));
    e.size = uint64_t(s.i64(15));
    e.partsPresent = uint64_t(s.i64(16));
    e.partBytes = uint64_t(s.i64(17));
    e.mergedPresent = s.i64(18) != 0;
    e.storageError = s.text(19);
    return e;
}

} // namespace

namespace {

// WHERE clause (after "WHERE 1") and its binds for a query's filters.
struct Filter {
    std::string sql;
    void bind(Statement& s, const EntryQuery& q) const
    {
        if (!q.keyContains.empty())
            s.bindText(1, asciiLower(q.keyContains));
        if (!q.keyPrefix.empty())
            s.bindBlob(2, q.keyPrefix.data(), q.keyPrefix.size()).bind(3, int64_t(q.keyPrefix.size()));
        if (!q.scope.empty())
            s.bindText(4, q.scope);
        if (!q.repoId.empty())
            s.bindText(5, q.repoId);
        if (q.minSize)
            s.bind(11, int64_t(std::min<uint64_t>(*q.minSize, INT64_MAX)));
        if (q.maxSize)
            s.bind(12, int64_t(std::min<uint64_t>(*q.maxSize, INT64_MAX)));
        if (q.minParts)
            s.bind(13, *q.minParts);
        if (q.maxParts)
            s.bind(14, *q.maxParts);
    }
};

Filter filterOf(const EntryQuery& q)
{
    Filter f;
    if (!q.keyContains.empty())
        f.sql += " AND instr(lower(key), ?1) > 0";
    if (!q.keyPrefix.empty())
        f.sql += " AND substr(CAST(key AS BLOB), 1, ?3) = ?2";
    if (!q.scope.empty())
        f.sql += " AND scope = ?4";
    if (!q.repoId.empty())
        f.sql += " AND repo_id = ?5";
    if (q.minSize)
        f.sql += " AND size >= ?11";
    if (q.maxSize)
        f.sql += " AND size <= ?12";
    if (q.minParts)
        f.sql += " AND part_count >= ?13";
    if (q.maxParts)
        f.sql += " AND part_count <= ?14";
    if (q.stateMask != 0) {
        std::string in;
        for (int st = 0; st < 4; ++st)
            if (q.stateMask & (1u << st))
                in += (in.empty() ? "" : ",") + std::to_string(st);
        f.sql += " AND state IN (" + (in.empty() ? std::string("-1") : in) + ")";
    }
    return f;
}

} // namespace

ActionsEntryPage SizeIndex::page(const EntryQuery& query, const std::optional<EntryCursor>& after, size_t limit)
{
    auto lk = db_->lock();
    const Filter f = filterOf(query);
    const bool byKey = query.order == EntryOrder::KeyAscending || query.order == EntryOrder::KeyDescending;
    const bool desc = descendingOrder(query.order);
    const std::string op = desc ? " < " : " > ";
    const std::string dir = desc ? " DESC" : "";
    const std::string col = orderColumn(query.order);
    std::string sql = std::string("SELECT ") + kEntryColumns + ", " + (byKey ? "0" : col) + " FROM entries WHERE 1" + f.sql;
    if (after && byKey)
        sql += " AND (key" + op + "?6 OR (key = ?6 AND (version" + op + "?7 OR (version = ?7 AND id" + op + "?8))))";
    else if (after)
        sql += " AND (" + col + op + "?9 OR (" + col + " = ?9 AND id" + op + "?8))";
    sql += byKey ? " ORDER BY key" + dir + ", version" + dir + ", id" + dir : " ORDER BY " + col + dir + ", id" + dir;
    sql += " LIMIT ?10";
    auto s = db_->prepare(sql);
    f.bind(s, query);
    if (after) {
        s.bindText(8, after->id);
        if (byKey)
            s.bindText(6, after->key).bindText(7, after->version);
        else
            s.bind(9, after->sortValue);
    }
    s.bind(10, int64_t(limit));
    ActionsEntryPage page;
    int64_t lastValue = 0;
    while (s.step()) {
        page.entries.push_back(entryAt(s));
        lastValue = s.i64(20);
    }
    if (page.entries.size() == limit && limit > 0) {
        const ActionsEntry& e = page.entries.back();
        page.next = EntryCursor{e.key, e.version, e.id, e.updatedAtMs, lastValue};
    }
    return page;
}

uint64_t SizeIndex::count(const EntryQuery& query)
{
    auto lk = db_->lock();
    const Filter f = filterOf(query);
    auto s = db_->prepare("SELECT count(*) FROM entries WHERE 1" + f.sql);
    f.bind(s, query);
    return s.step() ? uint64_t(s.i64(0)) : 0;
}

void SizeIndex::forEachEntry(const std::function<void(const ActionsEntry&)>& fn, Job* job)
{
    std::string after;
    for (;;) {
        std::vector<ActionsEntry> batch;
        {
            auto lk = db_->lock();
            auto s = db_->prepare(std::string("SELECT ") + kEntryColumns + " FROM entries WHERE id > ?1 ORDER BY id LIMIT 2000");
            s.bindText(1, after);
            while (s.step())
                batch.push_back(entryAt(s));
        }
        if (job)
            job->checkCancel();
        for (const auto& e : batch)
            fn(e);
        if (batch.size() < 2000)
            return;
        after = batch.back().id;
    }
}

std::vector<SizeIndex::Group> SizeIndex::groupBy(const std::string& column)
{
    if (column != "family" && column != "scope" && column != "repo_id")
        fail(path_, "no such group column '" + column + "'");
    auto lk = db_->lock();
    auto s = db_->prepare("SELECT " + column + ", count(*), sum(size), max(updated_at), min(updated_at) FROM entries "
                          "GROUP BY " + column + " ORDER BY sum(size) DESC, " + column);
    std::vector<Group> out;
    while (s.step())
        out.push_back({s.text(0), uint64_t(s.i64(1)), uint64_t(s.i64(2)), s.i64(3), s.i64(4)});
    return out;
}

} // namespace cs::actions
