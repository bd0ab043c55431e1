// Eviction and orphan removal. Rows go first, then the folder: a crash in
// between leaves an orphan folder (verify reports it, removeOrphans deletes
// it), never a row that points at nothing (the server would serve a stale
// entry). A folder another location or upload still names is never deleted.
// Kill points: evict-rows-deleted, evict-folder-deleted,
// orphan-location-deleted, orphan-folder-deleted.
#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/ServerSchema.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>
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

// Two walks of the catalog a page at a time (keyset paging, key order), so
// memory is one page, the victims, and 16 bytes per budget candidate (its
// last use and size), never every row: the first walk takes the victims by
// age or key and sums what stays; when that is over the budget, the
// candidates sorted by last use (stable: walk order breaks ties) give the
// last use T up to which they go, and how many of those used exactly at T;
// the second walk takes them.
std::vector<ActionsEntry> ActionsCache::planEvict(const ActionsEvictPolicy& policy)
{
    if (!policy.olderThanMs && !policy.unusedForMs && !policy.maxBytes && policy.keys.empty())
        throw Error("evict wants at least one of: older than, unused for, a size budget, a key");
    const int64_t now = nowMs();
    const bool byAge = policy.olderThanMs || policy.unusedForMs;
    // Never downloaded: its age counts from updatedAt.
    const auto usedAt = [](const ActionsEntry& e) { return e.lastDownloadedAtMs.value_or(e.updatedAtMs); };
    const auto victimByRule = [&](const ActionsEntry& e) {
        if (!keyMatches(policy.keys, e.key))
            return false;
        if (policy.olderThanMs && e.updatedAtMs < now - *policy.olderThanMs)
            return true;
        if (policy.unusedForMs && usedAt(e) < now - *policy.unusedForMs)
            return true;
        return !byAge && !policy.maxBytes; // only keys: every entry with them
    };
    std::vector<ActionsEntry> victims;
    struct Candidate {
        int64_t usedAt;
        uint64_t size;
    };
    std::vector<Candidate> candidates;
    uint64_t total = 0;
    forEachEntryPage(EntryQuery{}, 1000, [&](std::vector<ActionsEntry>& page) {
        for (auto& e : page) {
            if (victimByRule(e)) {
                victims.push_back(std::move(e));
                continue;
            }
            total += e.size;
            if (policy.maxBytes && keyMatches(policy.keys, e.key))
                candidates.push_back({usedAt(e), e.size});
        }
    });
    // Pending uploads' parts take space too: they count against the budget
    // (they are never victims here; reap-uploads removes them).
    if (policy.maxBytes)
        for (const auto& u : uploads())
            total += u.partBytes;
    if (!policy.maxBytes || total <= *policy.maxBytes)
        return victims;
    // Least recently used first (never downloaded: by updatedAt), among the keys asked for.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.usedAt < b.usedAt; });
    int64_t lastUse = 0;
    uint64_t atLastUse = 0;   // candidates used exactly at lastUse that go
    bool any = false;
    for (const auto& c : candidates) {
        if (total <= *policy.maxBytes)
            break;
        total -= c.size;
        atLastUse = any && c.usedAt == lastUse ? atLastUse + 1 : 1;
        lastUse = c.usedAt;
        any = true;
    }
    if (!any)
        return victims;
    candidates = {};
    forEachEntryPage(EntryQuery{}, 1000, [&](std::vector<ActionsEntry>& page) {
        for (auto& e : page) {
            if (victimByRule(e) || !keyMatches(policy.keys, e.key))
                continue;
            const int64_t u = usedAt(e);
            if (u < lastUse || (u == lastUse && atLastUse > 0)) {
                if (u == lastUse)
                    --atLastUse;
                victims.push_back(std::move(e));
            }
        }
    });
    return victims;
}

std::vector<ActionsSkip> ActionsCache::holdBackFromEvict(std::vector<ActionsEntry>& planned, const WriteOptions& options)
{
    const int64_t now = nowMs();
    std::map<std::string, LeaseRow> leased;
    for (auto& l : catalog_->leases(now))
        leased.emplace(l.storageLocationId, std::move(l));
    std::vector<ActionsSkip> held;
    std::vector<ActionsEntry> keep;
    keep.reserve(planned.size());
    for (auto& e : planned) {
        if (e.hasLocation && e.lastDownloadedAtMs && now - *e.lastDownloadedAtMs < options.partsGraceMs)
            held.push_back({std::move(e), "downloaded " + ago(now - *e.lastDownloadedAtMs)
                                              + " ago: a download may still stream it (--parts-grace)"});
        else if (const auto l = e.hasLocation ? leased.find(e.locationId) : leased.end(); l != leased.end())
            held.push_back({std::move(e), leaseSentence(catalog_->describe(), l->second)});
        else
            keep.push_back(std::move(e));
    }
    planned = std::move(keep);
    return held;
}

// Rows go first, each a compare-and-set on the row the plan read (its
// lastDownloadedAt included: a download since the plan keeps the entry).
// Folders go after a pause: a download that read its row just before our
// delete opens its first object within milliseconds, and once open a local
// file stays readable after it is unlinked. A folder some process still has
// open (a download streaming parts) is left as an orphan folder, for orphan
// removal later.
std::vector<ActionsEntry> ActionsCache::evict(const ActionsEvictPolicy& policy, Job& job, WriteOptions options,
                                              std::vector<ActionsSkip>* skipped)
{
    requireWritable(options);
    auto planned = planEvict(policy);
    const auto skip = [&](const ActionsEntry& e, std::string why) {
        if (skipped)
            skipped->push_back({e, std::move(why)});
    };
    for (auto& held : holdBackFromEvict(planned, options))
        skip(held.entry, std::move(held.reason));
    std::vector<ActionsEntry> gone;
    for (size_t i = 0; i < planned.size(); ++i) {
        job.checkCancel();
        job.setStepProgress(uint64_t(i), uint64_t(planned.size()));
        const ActionsEntry& e = planned[i];
        try {
            if (!catalog_->deleteLocation(e.locationId, e.hasLocation ? std::optional(locationOf(e)) : std::nullopt)) {
                skip(e, "skipped, the server got there first: its row changed since the plan");
                continue;
            }
        } catch (const LeaseHeld& held) {
            skip(e, held.what());   // a merge or a download of the server's under way: not even --force
            continue;
        }
        CS_ACTIONS_KILL_POINT("evict-rows-deleted");
        gone.push_back(e);
    }
    if (!gone.empty() && options.partsGraceMs > 0)
        for (int64_t waited = 0; waited < std::min(kDownloadOpenSettleMs, options.partsGraceMs); waited += 50) {
            job.checkCancel();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    for (auto& e : gone) {
        if (!e.hasLocation || !isPlainFolderName(e.folderName) || namedFolders(*catalog_).count(e.folderName) != 0)
            continue;
        if (options.partsGraceMs > 0) {
            const auto users = storage_->otherUsers(e.folderName);
            if (!users.empty()) {
                e.storageError = "rows deleted; folder left for orphan removal: " + users.front();
                continue;
            }
        }
        storage_->deleteFolder(e.folderName);
        CS_ACTIONS_KILL_POINT("evict-folder-deleted");
    }
    return gone;
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
            std::optional<LocationRow> seen;
            for (auto& l : catalog_->locations())
                if (l.id == f.entryId)
                    seen = std::move(l);
            bool stillOrphan = seen.has_value();
            for (const auto& e : catalog_->entries())
                if (e.locationId == f.entryId)
                    stillOrphan = false;
            // The delete is a compare-and-set on that row: changed since, or
            // under a lease of the server, it stays.
            try {
                if (!stillOrphan || !catalog_->deleteLocation(f.entryId, seen))
                    continue;
            } catch (const LeaseHeld&) {
                continue;
            }
            const std::string folder = seen->folderName;
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
