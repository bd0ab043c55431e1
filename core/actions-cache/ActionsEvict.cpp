// Eviction and orphan removal. Rows go first, then the folder: a crash in
// between leaves an orphan folder (verify reports it, removeOrphans deletes
// it), never a row that points at nothing (the server would serve a stale
// entry). A folder another location or upload still names is never deleted.
// Kill points: evict-rows-deleted, evict-folder-deleted,
// orphan-location-deleted, orphan-folder-deleted.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <algorithm>
#include <set>

namespace cs::actions {

namespace {

bool keyMatches(const std::vector<std::string>& keys, const std::string& key)
{
    if (keys.empty())
        return true;
    for (const auto& k : keys) {
        if (!k.empty() && k.back() == '*') {
            if (key.compare(0, k.size() - 1, k, 0, k.size() - 1) == 0)
                return true;
        } else if (k == key) {
            return true;
        }
    }
    return false;
}

// Folder names the catalog references, read fresh right before a delete.
std::multiset<std::string> namedFolders(ActionsCatalog& catalog)
{
    std::multiset<std::string> names;
    for (const auto& l : catalog.locations())
        names.insert(l.folderName);
    for (const auto& u : catalog.uploads())
        names.insert(u.folderName);
    return names;
}

} // namespace

std::vector<ActionsEntry> ActionsCache::planEvict(const ActionsEvictPolicy& policy)
{
    if (!policy.olderThanMs && !policy.unusedForMs && !policy.maxBytes && policy.keys.empty())
        throw Error("evict wants at least one of: older than, unused for, a size budget, a key");
    const int64_t now = nowMs();
    auto all = entries();
    std::vector<ActionsEntry> victims;
    std::vector<ActionsEntry> kept;
    const bool byAge = policy.olderThanMs || policy.unusedForMs;
    uint64_t total = 0;
    for (auto& e : all) {
        total += e.size;
        bool go = false;
        if (keyMatches(policy.keys, e.key)) {
            // Never downloaded: its age counts from updatedAt.
            const int64_t used = e.lastDownloadedAtMs.value_or(e.updatedAtMs);
            if (policy.olderThanMs && e.updatedAtMs < now - *policy.olderThanMs)
                go = true;
            if (policy.unusedForMs && used < now - *policy.unusedForMs)
                go = true;
            if (!byAge && !policy.maxBytes)
                go = true; // only keys: every entry with them
        }
        if (go) {
            total -= e.size;
            victims.push_back(std::move(e));
        } else {
            kept.push_back(std::move(e));
        }
    }
    if (policy.maxBytes && total > *policy.maxBytes) {
        // Least recently used first (never downloaded: by updatedAt), among the keys asked for.
        std::stable_sort(kept.begin(), kept.end(), [](const ActionsEntry& a, const ActionsEntry& b) {
            return a.lastDownloadedAtMs.value_or(a.updatedAtMs) < b.lastDownloadedAtMs.value_or(b.updatedAtMs);
        });
        for (auto& e : kept) {
            if (total <= *policy.maxBytes)
                break;
            if (!keyMatches(policy.keys, e.key))
                continue;
            total -= e.size;
            victims.push_back(e);
        }
    }
    return victims;
}

std::vector<ActionsEntry> ActionsCache::evict(const ActionsEvictPolicy& policy, Job& job, WriteOptions options)
{
    requireWritable(options);
    const auto victims = planEvict(policy);
    for (size_t i = 0; i < victims.size(); ++i) {
        job.checkCancel();
        job.setStepProgress(uint64_t(i), uint64_t(victims.size()));
        const ActionsEntry& e = victims[i];
        catalog_->deleteLocation(e.locationId);
        CS_ACTIONS_KILL_POINT("evict-rows-deleted");
        if (e.hasLocation && isPlainFolderName(e.folderName) && namedFolders(*catalog_).count(e.folderName) == 0)
            storage_->deleteFolder(e.folderName);
        CS_ACTIONS_KILL_POINT("evict-folder-deleted");
    }
    return victims;
}

std::vector<Finding> ActionsCache::planRemoveOrphans()
{
    std::vector<Finding> out;
    Job quiet("orphans");
    for (auto& f : verify(quiet))
        if (f.kind == FindingKind::OrphanFolder || f.kind == FindingKind::LocationWithoutEntry)
            out.push_back(std::move(f));
    return out;
}

std::vector<Finding> ActionsCache::removeOrphans(Job& job, WriteOptions options)
{
    requireWritable(options);
    const auto plan = planRemoveOrphans();
    // Doubt stops: when the catalog names folders and none of them is in this
    // storage folder, it is the wrong folder, and everything in it would look
    // orphaned.
    const auto locations = catalog_->locations();
    if (!locations.empty()) {
        bool anyFound = false;
        for (const auto& l : locations) {
            std::string error;
            if (listOrError(*storage_, l.folderName, error).exists) {
                anyFound = true;
                break;
            }
        }
        if (!anyFound)
            fail(storage_->describe(), "holds none of the " + std::to_string(locations.size())
                                           + " folders the database names; is it the right storage folder "
                                             "(--storage)? Nothing was removed");
    }
    std::vector<Finding> done;
    for (size_t i = 0; i < plan.size(); ++i) {
        job.checkCancel();
        job.setStepProgress(uint64_t(i), uint64_t(plan.size()));
        const Finding& f = plan[i];
        if (f.kind == FindingKind::LocationWithoutEntry) {
            // Re-read: an entry may have claimed the location since the plan.
            std::string folder;
            bool stillOrphan = false;
            for (const auto& l : catalog_->locations())
                if (l.id == f.entryId) {
                    folder = l.folderName;
                    stillOrphan = true;
                }
            for (const auto& e : catalog_->entries())
                if (e.locationId == f.entryId)
                    stillOrphan = false;
            if (!stillOrphan)
                continue;
            catalog_->deleteLocation(f.entryId);
            CS_ACTIONS_KILL_POINT("orphan-location-deleted");
            if (isPlainFolderName(folder) && namedFolders(*catalog_).count(folder) == 0)
                storage_->deleteFolder(folder);
        } else {
            if (namedFolders(*catalog_).count(f.folder) != 0)
                continue; // named since the plan
            storage_->deleteFolder(f.folder);
            CS_ACTIONS_KILL_POINT("orphan-folder-deleted");
        }
        done.push_back(f);
    }
    return done;
}

} // namespace cs::actions
