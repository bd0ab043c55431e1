#include "core/gc/EntriesReaching.h"

#include "core/pack/Pack.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "core/util/Sqlite.h"

#include <unordered_map>

namespace cs::gc {

pack::ObjectHeader objectHolding(const pack::Pack& pack, uint64_t rangeStart, uint64_t offset, Job* job)
{
    if (offset < rangeStart)
        fail(pack.dir(), "offset " + std::to_string(offset) + " lies before the range starting at " + std::to_string(rangeStart));
    uint64_t at = rangeStart;
    for (uint64_t n = 0;; ++n) {
        if (job && n % 256 == 255)
            job->checkCancel();
        pack::ObjectHeader h = pack.readHeader(at);
        if (h.totalBytes == 0)
            failAt(pack.dir(), at, "object of zero bytes");
        if (offset < at + h.totalBytes)
            return h;
        at += h.totalBytes;
    }
}

namespace {

// The merged entries whose root could reach an object at or above minRoot
// (a child is always below its parent), in id order.
sqlite::Statement entriesWithRootsFrom(const sqlite::Database& catalog, uint64_t minRoot)
{
    auto q = catalog.prepare("SELECT id, key, version, scope, root_offset FROM entries"
                             " WHERE state = 'merged' AND root_offset IS NOT NULL AND root_offset >= ?1 ORDER BY id");
    q.bind(1, minRoot);
    return q;
}

// Depth of the object below each node, -1 when its subtree does not hold it.
class TreeSearch {
public:
    TreeSearch(const pack::Pack& pack, uint64_t target) : pack_(pack), target_(target) {}

    int depthBelow(uint64_t node)
    {
        if (node == target_)
            return 0;
        if (node < target_)
            return -1;   // its whole subtree lies below the target
        if (auto it = memo_.find(node); it != memo_.end())
            return it->second;
        const pack::ObjectHeader h = pack_.readHeader(node);
        ++nodesRead;
        int found = -1;
        if (h.kind == pack::ObjectKind::Node) {
            for (const pack::ChildRef& c : h.children) {
                if (c.offset < target_)
                    continue;
                const int d = depthBelow(c.offset);
                if (d >= 0 && (found < 0 || d + 1 < found))
                    found = d + 1;
                if (found == 1)
                    break;
            }
        }
        memo_.emplace(node, found);
        return found;
    }

    uint64_t nodesRead = 0;

private:
    const pack::Pack& pack_;
    uint64_t target_;
    std::unordered_map<uint64_t, int> memo_;
};

} // namespace

EntriesReaching entriesReaching(const std::string& storeDir, uint64_t objectOffset, size_t limit, Job& job)
{
    EntriesReaching out;
    out.objectOffset = objectOffset;
    const store::StoreLayout layout = store::StoreLayout::open(storeDir);   // no links followed
    auto pack = layout.openPack(false);
    const sqlite::Database catalog(layout.storeCatalogPath(), sqlite::OpenMode::ReadOnly, sqlite::busy::kReachingReadMs);
    auto rows = entriesWithRootsFrom(catalog, objectOffset);
    TreeSearch search(*pack, objectOffset);
    while (rows.step()) {
        ReachingEntry e{rows.i64(0), rows.text(1), rows.text(2), rows.text(3), uint64_t(rows.i64(4)), 0};
        if (++out.candidates % 64 == 0)
            job.checkCancel();
        int depth = -1;
        try {
            depth = search.depthBelow(e.rootOffset);
        } catch (const Cancelled&) {
            throw;
        } catch (const Error&) {
            ++out.unreadable;
            continue;
        }
        if (depth < 0)
            continue;
        ++out.total;
        if (out.entries.size() < limit) {
            e.depth = depth;
            out.entries.push_back(e);
        }
    }
    out.nodesRead = search.nodesRead;
    return out;
}

} // namespace cs::gc
