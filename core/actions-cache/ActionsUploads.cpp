// Removing unfinished uploads (actions-cache reap-uploads): what the server's
// cleanup:uploads task does every 5 minutes (rows idle for a minute, then
// their folder), for the many servers that run with DISABLE_CLEANUP_JOBS,
// with a far longer idle time by default (1 day) and the same rules as every
// other write: the server must look idle unless forced, the row delete is a
// compare-and-set on the part counts and lastPartUploadedAt the plan saw (a
// part that came since keeps the upload), and a folder a process still has
// open (a part being written) or that a location names stays.
// Kill points: upload-row-deleted, upload-folder-deleted.
#include "core/actions-cache/ActionsCache.h"

#include "core/actions-cache/ActionsInternal.h"
#include "core/jobs/Job.h"

#include <set>

namespace cs::actions {

std::vector<ActionsUpload> ActionsCache::planReapUploads(int64_t idleForMs)
{
    std::vector<ActionsUpload> out;
    for (auto& u : uploads())
        if (u.ageMs > idleForMs)
            out.push_back(std::move(u));
    return out;
}

std::vector<ActionsUpload> ActionsCache::reapUploads(int64_t idleForMs, Job& job, WriteOptions options,
                                                     std::vector<ActionsUploadSkip>* skipped)
{
    requireWritable(options);
    const auto plan = planReapUploads(idleForMs);
    const auto skip = [&](const ActionsUpload& u, std::string why) {
        if (skipped)
            skipped->push_back({u, std::move(why)});
    };
    std::vector<ActionsUpload> gone;
    for (size_t i = 0; i < plan.size(); ++i) {
        job.checkCancel();
        job.setStepProgress(uint64_t(i), uint64_t(plan.size()));
        const ActionsUpload& u = plan[i];
        if (!catalog_->deleteUpload(u.row)) {
            skip(u, "skipped, the server got there first: the upload got a part, or finished, since the plan");
            continue;
        }
        CS_ACTIONS_KILL_POINT("upload-row-deleted");
        std::multiset<std::string> named;
        for (const auto& l : catalog_->locations())
            named.insert(l.folderName);
        for (const auto& other : catalog_->uploads())
            named.insert(other.folderName);
        std::string note;
        if (!isPlainFolderName(u.row.folderName) || named.count(u.row.folderName) != 0) {
            note = "row deleted; its folder is named by another row and stays";
        } else if (const auto users = storage_->otherUsers(u.row.folderName); !users.empty()) {
            note = "row deleted; folder left for orphan removal: " + users.front();
        } else {
            storage_->deleteFolder(u.row.folderName);
            CS_ACTIONS_KILL_POINT("upload-folder-deleted");
        }
        gone.push_back(u);
        if (!note.empty())
            gone.back().note = note;
    }
    return gone;
}

} // namespace cs::actions
