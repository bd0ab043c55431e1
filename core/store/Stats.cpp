// Store statistics: counts and sizes from the catalog, stored bytes by
// walking the roots of live entries (each object counted once).
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"

#include <unordered_set>

namespace cs::store {

StoreStats Store::stats(Job& job) const
{
    StoreStats s;
    std::vector<uint64_t> roots;
    {
        auto lock = d->catalog->lock();
        auto q = d->catalog->prepare("SELECT state, count(*), coalesce(sum(size), 0) FROM entries GROUP BY state");
        while (q.step()) {
            const auto state = parseEntryState(q.text(0));
            const uint64_t n = uint64_t(q.i64(1)), bytes = uint64_t(q.i64(2));
            if (state == EntryState::Merged) {
                s.mergedEntries = n;
                s.mergedLogicalBytes = bytes;
            } else if (state == EntryState::Unmerged) {
                s.unmergedEntries = n;
            } else {
                s.uploadingEntries = n;
            }
            if (state != EntryState::Uploading) {
                s.entries += n;
                s.logicalBytes += bytes;
            }
        }
        auto p = d->catalog->prepare("SELECT coalesce(sum(p.size), 0) FROM parts p JOIN entries e ON e.id=p.entry_id "
                                     "WHERE e.state='unmerged'");
        p.step();
        s.unmergedBytes = uint64_t(p.i64(0));
        auto f = d->catalog->prepare("SELECT count(*) FROM entries WHERE state='unmerged' AND merge_error IS NOT NULL");
        f.step();
        s.failedMerges = uint64_t(f.i64(0));
        auto c = d->catalog->prepare("SELECT count(*) FROM chunks");
        c.step();
        s.chunkRows = uint64_t(c.i64(0));
        auto r = d->catalog->prepare("SELECT DISTINCT root_offset FROM entries WHERE state='merged' ORDER BY root_offset");
        while (r.step())
            roots.push_back(uint64_t(r.i64(0)));
    }
    d->pack->reload();
    s.packBytes = d->pack->sizes().total();
    std::unordered_set<uint64_t> seen;
    std::vector<uint64_t> stack;
    for (size_t i = 0; i < roots.size(); ++i) {
        job.checkCancel();
        job.setStepProgress(i, roots.size());
        stack.push_back(roots[i]);
        while (!stack.empty()) {
            const uint64_t off = stack.back();
            stack.pop_back();
            if (!seen.insert(off).second)
                continue;
            try {
                const pack::ObjectHeader h = d->pack->readHeader(off);
                s.storedBytes += h.totalBytes;
                for (const auto& c : h.children)
                    stack.push_back(c.offset);
            } catch (const std::exception&) {
                // Unreadable objects are fsck's business; stats count what is there.
            }
        }
    }
    s.dedupRatio = s.storedBytes ? double(s.mergedLogicalBytes) / double(s.storedBytes) : 0.0;
    job.setStepProgress(1.0);
    return s;
}

} // namespace cs::store
