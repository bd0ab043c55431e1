// Eviction: picks entries by age, by last access, by key, then down to a byte
// budget (least recently used first; an entry never restored counts from its
// creation). Only catalog rows and parts go: the pack space they referenced is
// reclaimed by GC. An upload goes only once it has been idle a day (by
// default), never while it runs.
#include "core/store/StoreInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <set>

namespace cs::store {

EvictResult Store::evict(const EvictPolicy& policy, Job& job)
{
    EvictResult result;
    result.dryRun = policy.dryRun;
    const double now = policy.now > 0 ? policy.now : nowSeconds();
    std::vector<EntryRow> chosen;
    std::set<int64_t> ids;
    auto take = [&](Statement& q) {
        while (q.step()) {
            EntryRow r = rowFrom(q);
            if (ids.insert(r.id).second)
                chosen.push_back(std::move(r));
        }
    };
    const std::string select = std::string("SELECT ") + kEntryColumns + " FROM entries ";
    Transaction tx(*d->catalog, policy.dryRun ? Transaction::Deferred : Transaction::Immediate);
    job.setStepProgress(0.0, "choosing entries");
    if (policy.olderThanSeconds) {
        // Stale uploads go with old entries too.
        auto q = d->catalog->prepare(select + "WHERE created < ?1 ORDER BY created");
        q.bind(1, now - *policy.olderThanSeconds);
        take(q);
    }
    if (policy.unusedForSeconds) {
        auto q = d->catalog->prepare(select + "WHERE state<>'uploading' AND coalesce(last_access, created) < ?1 "
                                              "ORDER BY coalesce(last_access, created)");
        q.bind(1, now - *policy.unusedForSeconds);
        take(q);
    }
    for (const auto& k : policy.keys) {
        checkKey(k);
        auto q = d->catalog->prepare(select + "WHERE key=?1 ORDER BY created");
        q.bindText(1, k);
        take(q);
    }
    if (policy.maxBytes) {
        uint64_t total = 0;
        {
            auto q = d->catalog->prepare("SELECT coalesce(sum(size), 0) FROM entries WHERE state<>'uploading'");
            q.step();
            total = uint64_t(q.i64(0));
        }
        for (const auto& r : chosen)
            if (r.state != EntryState::Uploading)
                total -= std::min(total, r.size);
        if (total > *policy.maxBytes) {
            auto q = d->catalog->prepare(select + "WHERE state<>'uploading' ORDER BY coalesce(last_access, created), id");
            while (total > *policy.maxBytes && q.step()) {
                EntryRow r = rowFrom(q);
                if (!ids.insert(r.id).second)
                    continue;
                total -= std::min(total, r.size);
                chosen.push_back(std::move(r));
            }
        }
    }
    // A running upload never goes, whatever the policy: only one idle for
    // the stale age (reserved, and no part written since) does.
    std::erase_if(chosen, [&](const EntryRow& r) {
        if (r.state != EntryState::Uploading || now - d->lastUploadActivity(r) >= policy.staleUploadSeconds)
            return false;
        result.keptRunningUploads.push_back(r);
        return true;
    });
    for (const auto& r : chosen)
        result.bytes += r.size;
    for (const auto& r : chosen) {
        if (r.state == EntryState::Merged)
            continue;
        auto q = d->catalog->prepare("SELECT coalesce(sum(size), 0) FROM parts WHERE entry_id=?1");
        q.bind(1, r.id);
        q.step();
        result.partBytes += uint64_t(q.i64(0));
    }
    if (policy.dryRun) {
        result.evicted = std::move(chosen);
        return result;
    }
    job.checkCancel();
    auto delEntry = d->catalog->prepare("DELETE FROM entries WHERE id=?1");
    auto delParts = d->catalog->prepare("DELETE FROM parts WHERE entry_id=?1");
    for (const auto& r : chosen) {
        delEntry.reset();
        delEntry.bind(1, r.id).run();
        delParts.reset();
        delParts.bind(1, r.id).run();
    }
    tx.commit();
    // Rows are gone: a crash now leaves orphaned part folders, which fsck
    // reports and removeOrphans (`store fsck --repair`) deletes.
    for (size_t i = 0; i < chosen.size(); ++i) {
        killPoint(killpoints::store::kEvictRemove);
        d->removeParts(chosen[i].id);
        job.setStepProgress(i + 1, chosen.size());
    }
    result.evicted = std::move(chosen);
    return result;
}

} // namespace cs::store
