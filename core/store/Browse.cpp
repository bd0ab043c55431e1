// Paging queries for the store browser and entry details.
#include "core/store/BrowseQuery.h"
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <filesystem>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace fs = std::filesystem;

namespace cs::store {

std::optional<SortColumn> parseSortColumn(const std::string& name)
{
    static const std::map<std::string, SortColumn> names = {
        {"id", SortColumn::Id}, {"key", SortColumn::Key}, {"version", SortColumn::Version},
        {"scope", SortColumn::Scope}, {"size", SortColumn::Size}, {"state", SortColumn::State},
        {"parts", SortColumn::Parts}, {"created", SortColumn::Created}, {"last_access", SortColumn::LastAccess}};
    auto it = names.find(name);
    if (it == names.end())
        return std::nullopt;
    return it->second;
}

const char* columnOf(SortColumn c)
{
    switch (c) {
    case SortColumn::Id: return "id";
    case SortColumn::Key: return "key";
    case SortColumn::Version: return "version";
    case SortColumn::Scope: return "scope";
    case SortColumn::Size: return "size";
    case SortColumn::State: return "state";
    case SortColumn::Parts: return "part_count";
    case SortColumn::Created: return "created";
    case SortColumn::LastAccess: return "last_access";
    }
    return "id";
}

Where whereOf(const EntryFilter& f)
{
    Where w;
    auto add = [&](const std::string& cond, const std::string& value) {
        w.texts.push_back(value);
        w.sql += (w.sql.empty() ? " WHERE " : " AND ") + cond + std::to_string(w.texts.size());
    };
    if (!f.keyContains.empty())
        add("instr(key, ?", f.keyContains), w.sql += ") > 0";
    if (!f.keyPrefix.empty()) {
        add("key >= ?", f.keyPrefix);
        if (auto up = prefixSuccessor(f.keyPrefix))
            add("key < ?", *up);
    }
    if (f.state)
        add("state = ?", entryStateName(*f.state));
    if (f.version)
        add("version = ?", *f.version);
    if (f.scope)
        add("scope = ?", *f.scope);
    return w;
}

uint64_t Store::countEntries(const EntryFilter& filter) const
{
    const Where w = whereOf(filter);
    auto lock = d->catalog->lock();
    auto q = d->catalog->prepare("SELECT count(*) FROM entries" + w.sql);
    for (size_t i = 0; i < w.texts.size(); ++i)
        q.bindText(int(i + 1), w.texts[i]);
    q.step();
    return uint64_t(q.i64(0));
}

std::vector<EntryRow> listWithOffset(const Catalog& catalog, const EntryFilter& filter, SortColumn sort,
                                     bool descending, uint64_t offset, uint64_t limit)
{
    const Where w = whereOf(filter);
    const std::string dir = descending ? " DESC" : "";
    std::string sql = std::string("SELECT ") + kEntryColumns + " FROM entries" + w.sql + " ORDER BY ";
    if (sort != SortColumn::Id)
        sql += std::string(columnOf(sort)) + dir + ", ";
    sql += "id" + dir + " LIMIT ?" + std::to_string(w.texts.size() + 1) + " OFFSET ?" + std::to_string(w.texts.size() + 2);
    auto q = catalog.prepare(sql);
    for (size_t i = 0; i < w.texts.size(); ++i)
        q.bindText(int(i + 1), w.texts[i]);
    q.bind(int(w.texts.size() + 1), int64_t(std::min<uint64_t>(limit, INT64_MAX)));
    q.bind(int(w.texts.size() + 2), int64_t(std::min<uint64_t>(offset, INT64_MAX)));
    std::vector<EntryRow> rows;
    while (q.step())
        rows.push_back(rowFrom(q));
    return rows;
}

std::vector<EntryRow> Store::listEntries(const EntryFilter& filter, SortColumn sort, bool descending, uint64_t offset,
                                         uint64_t limit) const
{
    auto lock = d->catalog->lock();
    return listWithOffset(*d->catalog, filter, sort, descending, offset, limit);
}

EntryDetails Store::entryDetails(int64_t id) const
{
    EntryDetails det;
    auto e = d->entry(id);
    if (!e)
        throw Error(d->dir + ": entry " + std::to_string(id) + " does not exist");
    det.entry = *e;
    det.parts = d->partRows(id);
    for (auto& p : det.parts) {
        if (e->state == EntryState::Merged)
            continue;
        try {
            p.present = d->layout->partSize(id, p.index) == std::optional<uint64_t>(p.size);
        } catch (const Error&) {
            p.present = false;   // a link where the part folder should be
        }
    }
    if (e->state != EntryState::Merged)
        return det;
    try {
        d->chunkList(e->rootOffset, &det.objects);
    } catch (const std::exception& ex) {
        det.treeError = ex.what();
    }
    // How many other live entries reference each chunk: walk the other roots'
    // nodes (a node's children are all chunks or all nodes, as writeTree
    // makes them; the first child's header tells which).
    std::unordered_map<uint64_t, uint64_t> shared;
    for (const auto& o : det.objects)
        if (o.kind == ObjectInfo::Chunk)
            shared[o.offset] = 0;
    std::vector<std::pair<uint64_t, uint64_t>> roots;
    {
        auto lock = d->catalog->lock();
        auto q = d->catalog->prepare("SELECT root_offset, count(*) FROM entries WHERE state='merged' AND id<>?1 "
                                     "GROUP BY root_offset");
        q.bind(1, id);
        while (q.step())
            roots.emplace_back(uint64_t(q.i64(0)), uint64_t(q.i64(1)));
    }
    for (const auto& [root, count] : roots) {
        try {
            std::unordered_set<uint64_t> counted;
            std::vector<uint64_t> stack{root};
            while (!stack.empty()) {
                const uint64_t off = stack.back();
                stack.pop_back();
                const pack::ObjectHeader h = d->pack->readHeader(off);
                if (h.kind == pack::ObjectKind::Chunk) {
                    auto it = shared.find(off);
                    if (it != shared.end() && counted.insert(off).second)
                        it->second += count;
                    continue;
                }
                if (h.children.empty())
                    continue;
                bool leaf = shared.count(h.children.front().offset) > 0;
                if (!leaf)
                    leaf = d->pack->readHeader(h.children.front().offset).kind == pack::ObjectKind::Chunk;
                for (const auto& c : h.children) {
                    if (!leaf) {
                        stack.push_back(c.offset);
                    } else {
                        auto it = shared.find(c.offset);
                        if (it != shared.end() && counted.insert(c.offset).second)
                            it->second += count;
                    }
                }
            }
        } catch (const std::exception&) {
            // A broken tree of another entry is fsck's report, not this one's.
        }
    }
    for (auto& o : det.objects)
        if (o.kind == ObjectInfo::Chunk)
            o.sharedWith = shared[o.offset];
    return det;
}

} // namespace cs::store
