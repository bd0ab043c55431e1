// verify: every row checked against one listing of its folder, every folder
// against the rows. Work is bounded by the rows and the files present: a
// claimed part count is compared with the parts found, never looped to.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"

#include <algorithm>
#include <map>
#include <set>

namespace cs::actions {

const char* findingKindName(FindingKind k)
{
    switch (k) {
    case FindingKind::MissingParts: return "missing-parts";
    case FindingKind::ExtraParts: return "extra-parts";
    case FindingKind::MergedMissing: return "merged-missing";
    case FindingKind::MergedWrongSize: return "merged-wrong-size";
    case FindingKind::PartsDeletedUnmerged: return "parts-deleted-unmerged";
    case FindingKind::StalledMerge: return "stalled-merge";
    case FindingKind::OrphanFolder: return "orphan-folder";
    case FindingKind::LocationWithoutEntry: return "location-without-entry";
    case FindingKind::EntryWithoutLocation: return "entry-without-location";
    case FindingKind::UnfinishedUpload: return "unfinished-upload";
    case FindingKind::SymbolicLink: return "symbolic-link";
    case FindingKind::StorageError: return "storage-error";
    case FindingKind::SizeBytesWrong: return "size-bytes-wrong";
    }
    return "?";
}

namespace {

// Entries read and checked per step: bounds memory (rows and listings of one
// page) and gives the storage enough folders to list in parallel.
constexpr size_t kVerifyPage = 1000;

std::string plural(uint64_t n, const char* what)
{
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// "3, 7, 12 and 9,999,985 more": the first few missing indexes below
// claimed, found by walking the gaps between present parts (bounded).
std::string missingIndexes(const std::vector<PartObject>& parts, uint64_t claimed, uint64_t missing)
{
    std::vector<uint64_t> first;
    uint64_t next = 0;
    for (const auto& p : parts) {
        if (p.index >= claimed || first.size() >= 5)
            break;
        while (next < p.index && first.size() < 5)
            first.push_back(next++);
        next = p.index + 1;
    }
    while (next < claimed && first.size() < 5)
        first.push_back(next++);
    std::string s;
    for (size_t i = 0; i < first.size(); ++i)
        s += (i ? ", " : "") + std::to_string(first[i]);
    if (missing > first.size())
        s += " and " + std::to_string(missing - first.size()) + " more";
    return s;
}

void checkLocation(ActionsStorage& storage, const std::string& entryId, const std::string& key,
                   const LocationRow& l, const FolderListing& listing, int64_t now, std::vector<Finding>& out)
{
    const std::string& folder = l.folderName;
    auto add = [&](FindingKind kind, const std::string& path, const std::string& message) {
        out.push_back({kind, entryId, key, folder, path, message, 0});
    };
    for (const auto& link : listing.links)
        add(FindingKind::SymbolicLink, storage.objectName(folder, link),
            "is a symbolic link inside the storage folder (never followed)");
    uint64_t partBytes = 0;
    uint64_t below = 0;
    const uint64_t claimed = l.partCount > 0 ? uint64_t(l.partCount) : 0;
    std::vector<uint64_t> extra;
    for (const auto& p : listing.parts) {
        partBytes += p.size;
        if (p.index < claimed)
            ++below;
        else if (extra.size() < 5)
            extra.push_back(p.index);
    }
    const uint64_t extraCount = listing.parts.size() - below;
    for (const auto& stray : listing.strays)
        add(FindingKind::ExtraParts, storage.objectName(folder, stray),
            "is not an object the server writes (a leftover temp file or a stray name)");

    // Newer servers record the folder's bytes when the upload completes (and
    // backfill older rows from a listing): the parts then, the merged
    // object after the parts go, both while they overlap.
    if (l.sizeBytes) {
        const uint64_t blob = l.mergedAtMs && listing.mergedSize ? *listing.mergedSize : partBytes;
        const uint64_t folderBytes = listing.mergedSize.value_or(0) + partBytes;
        if (*l.sizeBytes < 0 || (uint64_t(*l.sizeBytes) != blob && uint64_t(*l.sizeBytes) != folderBytes))
            add(FindingKind::SizeBytesWrong, storage.objectName(folder, ""),
                "the location's sizeBytes says " + std::to_string(*l.sizeBytes) + " bytes but its blob is "
                    + std::to_string(blob) + " bytes (" + std::to_string(folderBytes) + " in the folder)");
    }
    if (l.partCount < 0)
        add(FindingKind::MissingParts, storage.objectName(folder, "parts"),
            "the location claims " + std::to_string(l.partCount) + " parts");
    if (l.mergedAtMs) {
        if (!listing.mergedSize)
            add(FindingKind::MergedMissing, storage.objectName(folder, "merged"),
                "marked merged but the merged object is missing");
        else if (!l.partsDeletedAtMs && below == claimed && extraCount == 0 && partBytes != *listing.mergedSize)
            add(FindingKind::MergedWrongSize, storage.objectName(folder, "merged"),
                "is " + std::to_string(*listing.mergedSize) + " bytes but its " + plural(claimed, "part")
                    + " hold " + std::to_string(partBytes));
        if (l.partsDeletedAtMs && !listing.parts.empty())
            add(FindingKind::ExtraParts, storage.objectName(folder, "parts"),
                plural(listing.parts.size(), "part") + " left after they were marked deleted");
        return;
    }
    if (l.partsDeletedAtMs) {
        add(FindingKind::PartsDeletedUnmerged, storage.objectName(folder, ""),
            "parts were marked deleted but the entry was never merged: nothing is left to serve");
        return;
    }
    if (below < claimed)
        add(FindingKind::MissingParts, storage.objectName(folder, "parts"),
            std::to_string(claimed - below) + " of " + plural(claimed, "part") + " missing (index "
                + missingIndexes(listing.parts, claimed, claimed - below) + ")");
    if (extraCount > 0) {
        std::string list;
        for (size_t i = 0; i < extra.size(); ++i)
            list += (i ? ", " : "") + std::to_string(extra[i]);
        if (extraCount > extra.size())
            list += " and " + std::to_string(extraCount - extra.size()) + " more";
        add(FindingKind::ExtraParts, storage.objectName(folder, "parts"),
            plural(extraCount, "part") + " beyond the " + std::to_string(claimed) + " the location claims (index "
                + list + ")");
    }
    if (l.mergeStartedAtMs && now - *l.mergeStartedAtMs >= kServerMergeResetMs)
        add(FindingKind::StalledMerge, storage.objectName(folder, ""),
            "a merge started " + ago(now - *l.mergeStartedAtMs) + " ago and never finished");
}

} // namespace

std::vector<Finding> ActionsCache::verify(Job& job)
{
    return verifyData(*catalog_, *storage_, job);
}

std::vector<Finding> verifyData(ActionsCatalog& catalog, ActionsStorage& storage, Job& job)
{
    const int64_t now = nowMs();
    std::vector<Finding> out;
    // Every folder a location or an upload names, to tell orphans: one
    // string a folder (the server's names are 10 digits, inside
    // std::string's own 32 bytes), the one term that grows with the catalog.
    std::vector<std::string> named;
    const uint64_t total = catalog.entryCount();
    // Entries are most of the work; the rest shares the last tenth.
    auto progress = [&](double fraction) {
        job.checkCancel();
        job.setStepProgress(fraction);
    };
    auto sizeOf = [](const FolderListing& l) {
        uint64_t bytes = l.mergedSize.value_or(0);
        for (const auto& p : l.parts)
            bytes += p.size;
        return bytes;
    };

    std::optional<EntryCursor> after;
    uint64_t done = 0;
    for (;;) {
        progress(total ? 0.9 * double(std::min(done, total)) / double(total) : 0.0);
        const auto rows = catalog.entriesPage(after, kVerifyPage);
        std::vector<std::string> folders;
        for (const auto& e : rows)
            if (e.location)
                folders.push_back(e.location->folderName);
        std::vector<std::string> errors;
        const auto listings = storage.listFolders(folders, errors, &job);
        size_t k = 0;
        for (const auto& e : rows) {
            if (!e.location) {
                out.push_back({FindingKind::EntryWithoutLocation, e.id, e.key, "", catalog.describe(),
                               "cache entry names storage location '" + e.locationId + "', which does not exist", 0});
                continue;
            }
            named.push_back(e.location->folderName);
            const FolderListing& listing = listings[k];
            const std::string& error = errors[k];
            ++k;
            if (!error.empty()) {
                const bool link = error.find("symbolic link") != std::string::npos;
                out.push_back({link ? FindingKind::SymbolicLink : FindingKind::StorageError, e.id, e.key,
                               e.location->folderName, storage.objectName(e.location->folderName, ""), error, 0});
                continue;
            }
            if (!listing.exists) {
                if (!e.location->mergedAtMs && !e.location->partsDeletedAtMs && e.location->partCount == 0)
                    continue; // an empty entry: nothing was ever stored
                out.push_back({e.location->mergedAtMs ? FindingKind::MergedMissing : FindingKind::MissingParts, e.id,
                               e.key, e.location->folderName, storage.objectName(e.location->folderName, ""),
                               "the storage folder is missing", 0});
                continue;
            }
            checkLocation(storage, e.id, e.key, *e.location, listing, now, out);
        }
        done += rows.size();
        if (rows.size() < kVerifyPage)
            break;
        after = EntryCursor{rows.back().key, rows.back().version, rows.back().id};
    }

    progress(0.9);
    {
        const auto lonely = catalog.locationsWithoutEntry();
        std::vector<std::string> folders, errors;
        for (const auto& l : lonely)
            folders.push_back(l.folderName);
        const auto listings = storage.listFolders(folders, errors, &job);
        for (size_t i = 0; i < lonely.size(); ++i) {
            named.push_back(lonely[i].folderName);
            out.push_back({FindingKind::LocationWithoutEntry, lonely[i].id, "", lonely[i].folderName,
                           storage.objectName(lonely[i].folderName, ""),
                           "storage location '" + lonely[i].id + "' is named by no cache entry", sizeOf(listings[i])});
        }
    }

    progress(0.92);
    {
        const auto uploads = catalog.uploads();
        std::vector<std::string> folders, errors;
        for (const auto& u : uploads)
            folders.push_back(u.folderName);
        const auto listings = storage.listFolders(folders, errors, &job);
        for (size_t i = 0; i < uploads.size(); ++i) {
            const UploadRow& u = uploads[i];
            named.push_back(u.folderName);
            const int64_t last = u.lastPartUploadedAtMs.value_or(u.createdAtMs);
            out.push_back({FindingKind::UnfinishedUpload, std::to_string(u.id), u.key, u.folderName,
                           storage.objectName(u.folderName, ""),
                           "upload " + std::to_string(u.id) + " of key '" + u.key + "' never finished: created "
                               + ago(now - u.createdAtMs) + " ago, last activity " + ago(now - last) + " ago, "
                               + std::to_string(u.finishedPartUploadCount) + " of "
                               + std::to_string(u.startedPartUploadCount) + " started parts finished, "
                               + plural(listings[i].parts.size(), "part file") + " present",
                           0});
        }
    }

    progress(0.94);
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
    std::vector<std::string> candidates;
    for (auto& folder : storage.folders())
        if (!std::binary_search(named.begin(), named.end(), folder))
            candidates.push_back(std::move(folder));
    named.clear();
    named.shrink_to_fit();
    progress(0.97);
    for (size_t start = 0; start < candidates.size(); start += kVerifyPage) {
        job.checkCancel();
        const std::vector<std::string> slice(candidates.begin() + long(start),
                                             candidates.begin() + long(std::min(candidates.size(), start + kVerifyPage)));
        std::vector<std::string> errors;
        const auto listings = storage.listFolders(slice, errors, &job);
        for (size_t i = 0; i < slice.size(); ++i) {
            const std::string& folder = slice[i];
            // Only a plain folder is an orphan removeOrphans may delete: a file
            // or a link in the storage root (the database itself, when --storage
            // names the data dir) is reported and left alone.
            if (!errors[i].empty()) {
                const bool link = errors[i].find("symbolic link") != std::string::npos;
                out.push_back({link ? FindingKind::SymbolicLink : FindingKind::StorageError, "", "", folder,
                               storage.objectName(folder, ""), errors[i], 0});
                continue;
            }
            // The server names its folders by upload id (10 random digits, lib/helpers.ts).
            const bool serverName = !folder.empty() && folder.size() <= 20
                                    && folder.find_first_not_of("0123456789") == std::string::npos;
            if (!serverName) {
                out.push_back({FindingKind::StorageError, "", "", folder, storage.objectName(folder, ""),
                               "is not a folder the server writes (its folders are upload ids); left alone", 0});
                continue;
            }
            out.push_back({FindingKind::OrphanFolder, "", "", folder, storage.objectName(folder, ""),
                           "no storage location or upload names this folder", sizeOf(listings[i])});
        }
    }
    progress(1.0);
    return out;
}

} // namespace cs::actions
