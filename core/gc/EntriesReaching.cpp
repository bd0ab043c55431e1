#include "core/gc/EntriesReaching.h"

#include "core/pack/Pack.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"

#include <sqlite3.h>

#include <filesystem>
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

class Catalog {
public:
    explicit Catalog(const std::string& path) : path_(path)
    {
        if (!std::filesystem::exists(path))
            fail(path, "no catalog here (not a cachescope store?)");
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
            const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            db_ = nullptr;
            fail(path, "cannot open the catalog: " + msg);
        }
        sqlite3_busy_timeout(db_, 10000);
    }
    ~Catalog()
    {
        sqlite3_finalize(st_);
        sqlite3_close(db_);
    }
    void query(uint64_t minRoot)
    {
        const char* sql = "SELECT id, key, version, scope, root_offset FROM entries"
                          " WHERE state = 'merged' AND root_offset IS NOT NULL AND root_offset >= ?1 ORDER BY id";
        if (sqlite3_prepare_v2(db_, sql, -1, &st_, nullptr) != SQLITE_OK)
            fail(path_, std::string("catalog query failed: ") + sqlite3_errmsg(db_));
        sqlite3_bind_int64(st_, 1, int64_t(minRoot));
    }
    bool next(ReachingEntry& e)
    {
        const int rc = sqlite3_step(st_);
        if (rc == SQLITE_DONE)
            return false;
        if (rc != SQLITE_ROW)
            fail(path_, std::string("catalog query failed: ") + sqlite3_errmsg(db_));
        auto text = [&](int col) {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
            return p ? std::string(p, size_t(sqlite3_column_bytes(st_, col))) : std::string();
        };
        e.id = sqlite3_column_int64(st_, 0);
        e.key = text(1);
        e.version = text(2);
        e.scope = text(3);
        e.rootOffset = uint64_t(sqlite3_column_int64(st_, 4));
        e.depth = 0;
        return true;
    }

private:
    std::string path_;
    sqlite3* db_ = nullptr;
    sqlite3_stmt* st_ = nullptr;
};

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
    auto pack = pack::Pack::open(layout.packFolder(false), false);
    Catalog catalog(layout.catalogPath());
    catalog.query(objectOffset);
    TreeSearch search(*pack, objectOffset);
    ReachingEntry e;
    while (catalog.next(e)) {
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
