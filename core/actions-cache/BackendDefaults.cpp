// The ActionsCatalog and ActionsStorage methods with a portable default:
// any catalog answers the size index's change questions by reading its
// entries, any storage walks its folders one listing each. The SQLite and
// PostgreSQL catalogs answer in SQL, S3 reads its list pages once.
#include "core/actions-cache/ActionsBackend.h"

#include "core/jobs/Job.h"

#include <algorithm>
#include <unordered_set>

namespace cs::actions {

namespace {

bool changedSince(const EntryRow& e, int64_t ms)
{
    if (e.updatedAtMs >= ms)
        return true;
    if (!e.location)
        return false;
    for (const auto& t : {e.location->mergeStartedAtMs, e.location->mergedAtMs, e.location->partsDeletedAtMs,
                          e.location->lastDownloadedAtMs})
        if (t && *t >= ms)
            return true;
    return false;
}

} // namespace

std::vector<EntryRow> ActionsCatalog::entriesChangedSince(int64_t ms)
{
    std::vector<EntryRow> out;
    for (auto& e : entries())
        if (changedSince(e, ms))
            out.push_back(std::move(e));
    return out;
}

std::vector<std::string> ActionsCatalog::entryIdsAfter(const std::string& afterId, size_t limit)
{
    std::vector<std::string> ids;
    for (auto& e : entries())
        if (e.id > afterId)
            ids.push_back(std::move(e.id));
    std::sort(ids.begin(), ids.end());
    if (ids.size() > limit)
        ids.resize(limit);
    return ids;
}

std::vector<EntryRow> ActionsCatalog::entriesWithIds(const std::vector<std::string>& ids)
{
    const std::unordered_set<std::string> wanted(ids.begin(), ids.end());
    std::vector<EntryRow> out;
    for (auto& e : entries())
        if (wanted.count(e.id))
            out.push_back(std::move(e));
    return out;
}

void ActionsStorage::forEachFolder(
    const std::function<void(const std::string&, const FolderListing&, const std::string&)>& onFolder, Job* job)
{
    constexpr size_t kBatch = 256;   // enough folders to list in parallel, one batch of listings in memory
    const std::vector<std::string> all = folders();
    for (size_t i = 0; i < all.size(); i += kBatch) {
        if (job)
            job->checkCancel();
        const std::vector<std::string> batch(all.begin() + long(i), all.begin() + long(std::min(all.size(), i + kBatch)));
        std::vector<std::string> errors;
        const auto listings = listFolders(batch, errors, job);
        for (size_t k = 0; k < batch.size(); ++k)
            onFolder(batch[k], listings[k], errors[k]);
    }
}

} // namespace cs::actions
