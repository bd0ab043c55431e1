// The offline merge, in the server's order (lib/storage.ts download()):
//   1 mergeStartedAt = now        the server then streams parts and never
//                                 starts its own merge of this location
//   2 parts 0..partCount-1, in numeric order, into merged.tmp-<pid> in the
//     folder; fsync
//   3 rename to merged; fsync the folder
//   4 mergedAt = now              the server serves merged from here on
//   -- the parts stay for the grace (WriteOptions::partsGraceMs): a download
//      that read the row before step 4 streams them one by one --
//   5 partsDeletedAt = now        (the server's cleanup:parts order)
//   6 delete each part, then parts/
// Every row write is a compare-and-set on the row as the plan (or our own
// previous step) left it: a lost one stops that entry, reported as skipped,
// with nothing of anyone else's undone. So two merges of one entry take
// turns: the second's step 1 fails and it skips.
// Every step leaves a state the server (and a re-run of merge) handles: a
// crash in 1-3 leaves "merge started" with all parts (the server resets it
// after 15 minutes; a temp file is a stray verify reports); a crash in 4-6
// leaves a merged location whose parts a re-run deletes. A failure or cancel
// in 2-3 removes the temp file and clears mergeStartedAt, as the server does.
// Kill points, in order: merge-started, part-copied (after each part),
// merged-synced, merged-published, merged-at-set, parts-deleted-at-set,
// part-deleted (after each), parts-folder-deleted.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/actions-cache/ServerSchema.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <algorithm>
#include <map>
#include <optional>

namespace cs::actions {

namespace {

enum class MergeWork { None, Full, DeleteParts, Refused, Skipped };

struct MergeStep {
    ActionsEntry entry;
    FolderListing listing;
    MergeWork work = MergeWork::None;
    std::string action;
};

MergeStep planOne(ActionsStorage& storage, const ActionsEntry& e, bool named, int64_t now, const WriteOptions& o)
{
    const bool force = o.force;
    MergeStep s{e, {}, MergeWork::None, {}};
    if (!e.hasLocation) {
        s.work = MergeWork::Refused;
        s.action = "no storage location row: nothing to merge";
        return s;
    }
    std::string error;
    s.listing = listOrError(storage, e.folderName, error);
    if (!error.empty()) {
        s.work = MergeWork::Refused;
        s.action = error;
        return s;
    }
    if (!s.listing.links.empty()) {
        s.work = MergeWork::Refused;
        s.action = storage.objectName(e.folderName, s.listing.links.front())
                   + " is a symbolic link; cachescope never follows links inside the storage folder";
        return s;
    }
    if (e.merged()) {
        if (!e.partsDeletedAtMs || !s.listing.parts.empty() || s.listing.hasPartsFolder) {
            if (!s.listing.mergedSize) {
                s.work = MergeWork::Refused;
                s.action = "marked merged but " + storage.objectName(e.folderName, "merged")
                           + " is missing: its parts are kept";
                return s;
            }
            const size_t n = s.listing.parts.size();
            if (now - *e.mergedAtMs < o.partsGraceMs) {
                s.work = MergeWork::Skipped;
                s.action = "keep the " + std::to_string(n) + (n == 1 ? " part" : " parts") + " for "
                           + ago(*e.mergedAtMs + o.partsGraceMs - now)
                           + " more: merged " + ago(now - *e.mergedAtMs)
                           + " ago, a download may still stream them (--parts-grace)";
                return s;
            }
            s.work = MergeWork::DeleteParts;
            s.action = "delete the " + std::to_string(n) + (n == 1 ? " part" : " parts") + " left after the merge";
        } else if (named) {
            s.action = "already merged";
        }
        return s;
    }
    if (e.partsDeletedAtMs) {
        s.work = MergeWork::Refused;
        s.action = "parts were deleted without a merge: nothing left to merge";
        return s;
    }
    if (e.partCount <= 0) {
        s.work = MergeWork::Refused;
        s.action = "the location claims " + std::to_string(e.partCount) + " parts";
        return s;
    }
    // Every part below the claimed count, checked against the one listing.
    const uint64_t claimed = uint64_t(e.partCount);
    uint64_t present = 0;
    for (const auto& p : s.listing.parts)
        if (p.index < claimed)
            ++present;
    if (present < claimed) {
        s.work = MergeWork::Refused;
        s.action = std::to_string(claimed - present) + " of " + std::to_string(claimed) + " parts are missing";
        return s;
    }
    for (const auto& stray : s.listing.strays)
        if (isLiveMergeTemp(stray)) {
            s.work = MergeWork::Skipped;
            s.action = "skipped: another cachescope merge is writing " + storage.objectName(e.folderName, stray);
            return s;
        }
    if (force && e.mergeStartedAtMs && now - *e.mergeStartedAtMs < kServerMergeResetMs) {
        // Forced past a recent merge: not while a process is at the folder
        // (the server writes merged in place and would truncate ours).
        const auto users = storage.otherUsers(e.folderName);
        if (!users.empty()) {
            s.work = MergeWork::Skipped;
            s.action = "skipped: a merge started " + ago(now - *e.mergeStartedAtMs) + " ago is under way (" + users.front()
                       + "); --force takes over only a merge nobody is at";
            return s;
        }
    }
    if (!force && e.mergeStartedAtMs && now - *e.mergeStartedAtMs < kServerMergeResetMs) {
        s.work = MergeWork::Skipped;
        s.action = "skipped: a merge started " + ago(now - *e.mergeStartedAtMs)
                   + " ago (by the server or another cachescope run) may still be at it (the server gives up "
                     "after 15 min; --force merges anyway)";
        return s;
    }
    s.work = MergeWork::Full;
    s.action = "merge " + std::to_string(claimed) + (claimed == 1 ? " part" : " parts") + " into merged";
    return s;
}

} // namespace

// The catalog walked a page at a time (keyset paging): memory is one page
// plus the steps that have work (or were named), never every row.
static std::vector<MergeStep> planAll(ActionsCache& cache, const std::vector<std::string>& ids,
                                      const WriteOptions& options)
{
    const int64_t now = nowMs();
    std::vector<MergeStep> steps;
    std::vector<bool> found(ids.size(), false);
    // The server's unexpired leases (newer schemas): a plan says which
    // entries a merge would leave to the server; the write tests them again
    // in its own transaction.
    std::map<std::string, LeaseRow> leased;
    for (auto& l : cache.catalog().leases(now))
        leased.emplace(l.storageLocationId, std::move(l));
    cache.forEachEntryPage(EntryQuery{}, 1000, [&](std::vector<ActionsEntry>& page) {
        for (const auto& e : page) {
            bool named = false;
            for (size_t i = 0; i < ids.size(); ++i)
                if (ids[i] == e.id)
                    named = found[i] = true;
            if (!ids.empty() && !named)
                continue;
            MergeStep s = planOne(cache.storage(), e, named, now, options);
            if (s.work == MergeWork::None && !named)
                continue;
            if (const auto l = leased.find(e.locationId);
                l != leased.end() && (s.work == MergeWork::Full || s.work == MergeWork::DeleteParts)) {
                s.work = MergeWork::Skipped;
                s.action = leaseSentence(cache.catalog().describe(), l->second);
            }
            steps.push_back(std::move(s));
        }
    });
    for (size_t i = 0; i < ids.size(); ++i)
        if (!found[i])
            fail(cache.catalog().describe(), "no cache entry with id '" + ids[i] + "'");
    return steps;
}

static ActionsMergeResult resultOf(const MergeStep& s)
{
    ActionsMergeResult r;
    r.id = s.entry.id;
    r.key = s.entry.key;
    r.bytes = s.work == MergeWork::Full ? s.entry.partBytes : s.entry.size;
    r.action = s.action;
    r.error = s.work == MergeWork::Refused;
    r.skipped = s.work == MergeWork::Skipped;
    return r;
}

std::vector<ActionsMergeResult> ActionsCache::planMerge(const std::vector<std::string>& entryIds,
                                                        const WriteOptions& options)
{
    std::vector<ActionsMergeResult> out;
    for (const auto& s : planAll(*this, entryIds, options))
        out.push_back(resultOf(s));
    return out;
}

namespace {

constexpr const char* kLostRace = "skipped, the server got there first: the row changed since the plan (";

// Steps 5-6 on a location whose row shows `seen`. false: the row changed
// first and nothing was deleted.
bool deleteParts(ActionsCatalog& catalog, ActionsStorage& storage, const MergeStep& s, const LocationRow& seen)
{
    if (!catalog.setPartsDeleted(seen, nowMs()))
        return false;
    CS_ACTIONS_KILL_POINT("parts-deleted-at-set");
    for (const auto& p : s.listing.parts) {
        storage.deletePart(s.entry.folderName, p.index);
        CS_ACTIONS_KILL_POINT("part-deleted");
    }
    storage.deletePartsFolder(s.entry.folderName);
    CS_ACTIONS_KILL_POINT("parts-folder-deleted");
    return true;
}

// Steps 1-4 (and 5-6 when there is no grace). Returns what happened; bytes
// copied go to r.
void mergeFull(ActionsCatalog& catalog, ActionsStorage& storage, const MergeStep& s, Job& job, uint64_t& done,
               uint64_t total, const WriteOptions& options, ActionsMergeResult& r)
{
    const std::string& folder = s.entry.folderName;
    const uint64_t claimed = uint64_t(s.entry.partCount);
    LocationRow row = locationOf(s.entry);
    const int64_t started = nowMs();
    if (!catalog.setMergeStarted(row, started)) {
        r.skipped = true;
        r.action = std::string(kLostRace) + "a merge started or finished meanwhile)";
        return;
    }
    const LocationRow planned = row;
    row.mergeStartedAtMs = started;
    CS_ACTIONS_KILL_POINT("merge-started");
    uint64_t bytes = 0;
    try {
        auto out = storage.beginMerged(folder);
        std::vector<char> buf(1 << 20);
        // The listing is sorted by numeric index: part 10 comes after 9.
        for (const auto& p : s.listing.parts) {
            if (p.index >= claimed)
                break; // the server reads parts 0..partCount-1 only
            auto in = storage.openPart(folder, p.index);
            uint64_t got = 0;
            for (;;) {
                job.checkCancel();
                const size_t n = in->read(buf.data(), buf.size());
                if (n == 0)
                    break;
                out->write(buf.data(), n);
                got += n;
                done += n;
                job.setStepProgress(done, total);
            }
            if (got != p.size)
                fail(storage.objectName(folder, "parts/" + std::to_string(p.index)),
                     "changed while being merged (" + std::to_string(p.size) + " bytes listed, "
                         + std::to_string(got) + " read)");
            bytes += got;
            CS_ACTIONS_KILL_POINT("part-copied");
        }
        out->finish();
        CS_ACTIONS_KILL_POINT("merged-synced");
        out->publish();
        CS_ACTIONS_KILL_POINT("merged-published");
    } catch (const Cancelled&) {
        try {
            (void)catalog.setMergeStarted(row, planned.mergeStartedAtMs);
        } catch (const Error&) {
        }
        throw;
    } catch (const Error& e) {
        // As the server does when its merge fails: the location is unmerged
        // again, if the row is still ours. When it is not, a forced run took
        // the merge over (and may have deleted the parts we were reading):
        // the entry is theirs, and this run skips it.
        bool ours = true;
        try {
            ours = catalog.setMergeStarted(row, planned.mergeStartedAtMs);
        } catch (const Error&) {
        }
        if (ours)
            throw;
        r.skipped = true;
        r.action = std::string(kLostRace) + "another merge took it over while this one ran: " + e.what() + ")";
        return;
    }
    r.bytes = bytes;
    r.merged = true;
    const int64_t mergedAt = nowMs();
    if (!catalog.setMerged(row, mergedAt)) {
        // The server reset it (past its 15 minutes) or a forced run took it
        // over: the merged file is theirs to use or replace.
        r.skipped = true;
        r.action = std::string(kLostRace) + "the merge was reset or taken over while it ran; merged is written)";
        return;
    }
    row.mergedAtMs = mergedAt;
    CS_ACTIONS_KILL_POINT("merged-at-set");
    if (options.partsGraceMs > 0) {
        r.action = "merged " + std::to_string(claimed) + (claimed == 1 ? " part" : " parts")
                   + "; they stay for " + ago(options.partsGraceMs)
                   + " (a download may still stream them), then a merge run or the server's cleanup deletes them";
        return;
    }
    if (!deleteParts(catalog, storage, s, row)) {
        r.skipped = true;
        r.action = std::string(kLostRace) + "its parts were deleted meanwhile)";
    }
}

} // namespace

std::vector<ActionsMergeResult> ActionsCache::merge(const std::vector<std::string>& entryIds, Job& job,
                                                    WriteOptions options)
{
    const auto steps = planAll(*this, entryIds, options); // unknown ids fail before anything else
    requireWritable(options);
    uint64_t total = 0, done = 0;
    for (const auto& s : steps)
        if (s.work == MergeWork::Full)
            total += s.entry.partBytes;
    std::vector<ActionsMergeResult> results;
    // A refusal made from a row the server changed while we listed the
    // folder (it merged and deleted the parts in between) is a lost race,
    // not damage: the fresh rows, read once when needed, tell.
    std::optional<std::map<std::string, LocationRow>> fresh;
    const auto rowChanged = [&](const ActionsEntry& e) {
        if (!fresh) {
            fresh.emplace();
            for (auto& l : catalog_->locations())
                (*fresh)[l.id] = std::move(l);
        }
        const auto it = fresh->find(e.locationId);
        return it == fresh->end() || it->second.mergeStartedAtMs != e.mergeStartedAtMs
               || it->second.mergedAtMs != e.mergedAtMs || it->second.partsDeletedAtMs != e.partsDeletedAtMs;
    };
    for (const auto& s : steps) {
        ActionsMergeResult r = resultOf(s);
        try {
            if (s.work == MergeWork::Refused && s.entry.hasLocation && rowChanged(s.entry)) {
                r.error = false;
                r.skipped = true;
                r.action = std::string(kLostRace) + "its row changed while its folder was listed)";
            } else if (s.work == MergeWork::Full) {
                mergeFull(*catalog_, *storage_, s, job, done, total, options, r);
            } else if (s.work == MergeWork::DeleteParts) {
                job.checkCancel();
                if (!deleteParts(*catalog_, *storage_, s, locationOf(s.entry))) {
                    r.skipped = true;
                    r.action = std::string(kLostRace) + "its parts were deleted meanwhile)";
                }
            }
        } catch (const LeaseHeld& held) {
            // The server merges it, or a download reads it: its to finish,
            // not even --force takes it over. (A lease taken after our merged
            // object was written leaves that object, the bytes the server's
            // merge writes too, and the row unmerged for the server to set.)
            r.error = false;
            r.skipped = true;
            r.action = held.what();
        }
        results.push_back(std::move(r));
    }
    return results;
}

} // namespace cs::actions
