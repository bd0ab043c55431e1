// The offline merge, in the server's order (lib/storage.ts download()):
//   1 mergeStartedAt = now        the server then streams parts and never
//                                 starts its own merge of this location
//   2 parts 0..partCount-1, in numeric order, into merged.tmp-<pid> in the
//     folder; fsync
//   3 rename to merged; fsync the folder
//   4 mergedAt = now              the server serves merged from here on
//   5 delete each part, then parts/
//   6 partsDeletedAt = now
// Every step leaves a state the server (and a re-run of merge) handles: a
// crash in 1-3 leaves "merge started" with all parts (the server resets it
// after 15 minutes; a temp file is a stray verify reports); a crash in 4-6
// leaves a merged location whose parts a re-run deletes. A failure or cancel
// in 2-3 removes the temp file and clears mergeStartedAt, as the server does.
// Kill points, in order: merge-started, part-copied (after each part),
// merged-synced, merged-published, merged-at-set, part-deleted (after each),
// parts-folder-deleted, parts-deleted-at-set.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <algorithm>

namespace cs::actions {

namespace {

enum class MergeWork { None, Full, DeleteParts, Refused };

struct MergeStep {
    ActionsEntry entry;
    FolderListing listing;
    MergeWork work = MergeWork::None;
    std::string action;
};

MergeStep planOne(ActionsStorage& storage, const ActionsEntry& e, bool named, int64_t now, bool force)
{
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
            s.work = MergeWork::DeleteParts;
            s.action = "delete the " + std::to_string(s.listing.parts.size()) + " parts left after the merge";
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
    if (!force && e.mergeStartedAtMs && now - *e.mergeStartedAtMs < kServerMergeResetMs) {
        s.work = MergeWork::Refused;
        s.action = "the server started merging it " + ago(now - *e.mergeStartedAtMs)
                   + " ago and may still be at it (it gives up after 15 min; --force merges anyway)";
        return s;
    }
    s.work = MergeWork::Full;
    s.action = "merge " + std::to_string(claimed) + (claimed == 1 ? " part" : " parts") + " into merged";
    return s;
}

} // namespace

// The catalog walked a page at a time (keyset paging): memory is one page
// plus the steps that have work (or were named), never every row.
static std::vector<MergeStep> planAll(ActionsCache& cache, const std::vector<std::string>& ids, bool force)
{
    const int64_t now = nowMs();
    std::vector<MergeStep> steps;
    std::vector<bool> found(ids.size(), false);
    cache.forEachEntryPage(EntryQuery{}, 1000, [&](std::vector<ActionsEntry>& page) {
        for (const auto& e : page) {
            bool named = false;
            for (size_t i = 0; i < ids.size(); ++i)
                if (ids[i] == e.id)
                    named = found[i] = true;
            if (!ids.empty() && !named)
                continue;
            MergeStep s = planOne(cache.storage(), e, named, now, force);
            if (s.work == MergeWork::None && !named)
                continue;
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
    return r;
}

std::vector<ActionsMergeResult> ActionsCache::planMerge(const std::vector<std::string>& entryIds, bool force)
{
    std::vector<ActionsMergeResult> out;
    for (const auto& s : planAll(*this, entryIds, force))
        out.push_back(resultOf(s));
    return out;
}

namespace {

void deleteParts(ActionsCatalog& catalog, ActionsStorage& storage, const MergeStep& s)
{
    for (const auto& p : s.listing.parts) {
        storage.deletePart(s.entry.folderName, p.index);
        CS_ACTIONS_KILL_POINT("part-deleted");
    }
    storage.deletePartsFolder(s.entry.folderName);
    CS_ACTIONS_KILL_POINT("parts-folder-deleted");
    catalog.setPartsDeleted(s.entry.locationId, nowMs());
    CS_ACTIONS_KILL_POINT("parts-deleted-at-set");
}

uint64_t mergeFull(ActionsCatalog& catalog, ActionsStorage& storage, const MergeStep& s, Job& job, uint64_t& done,
                   uint64_t total)
{
    const std::string& folder = s.entry.folderName;
    const uint64_t claimed = uint64_t(s.entry.partCount);
    catalog.setMergeStarted(s.entry.locationId, nowMs());
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
    } catch (...) {
        // As the server does when its merge fails: the location is unmerged again.
        try {
            catalog.setMergeStarted(s.entry.locationId, s.entry.mergeStartedAtMs);
        } catch (const Error&) {
        }
        throw;
    }
    catalog.setMerged(s.entry.locationId, nowMs());
    CS_ACTIONS_KILL_POINT("merged-at-set");
    deleteParts(catalog, storage, s);
    return bytes;
}

} // namespace

std::vector<ActionsMergeResult> ActionsCache::merge(const std::vector<std::string>& entryIds, Job& job,
                                                    WriteOptions options)
{
    const auto steps = planAll(*this, entryIds, options.force); // unknown ids fail before anything else
    requireWritable(options);
    uint64_t total = 0, done = 0;
    for (const auto& s : steps)
        if (s.work == MergeWork::Full)
            total += s.entry.partBytes;
    std::vector<ActionsMergeResult> results;
    for (const auto& s : steps) {
        ActionsMergeResult r = resultOf(s);
        if (s.work == MergeWork::Full) {
            r.bytes = mergeFull(*catalog_, *storage_, s, job, done, total);
            r.merged = true;
        } else if (s.work == MergeWork::DeleteParts) {
            job.checkCancel();
            deleteParts(*catalog_, *storage_, s);
        }
        results.push_back(std::move(r));
    }
    return results;
}

} // namespace cs::actions
