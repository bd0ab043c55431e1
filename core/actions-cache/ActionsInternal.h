// Helpers shared by the ActionsCache source files (not a public header).
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/util/KillPoint.h"

#include <atomic>
#include <optional>

#include <sys/types.h>

namespace cs::actions {

int64_t nowMs();
std::string ago(int64_t ms);            // "40 s", "12 min", "3 h", "9 days"
EntryState stateOf(const std::optional<int64_t>& mergeStartedAt, const std::optional<int64_t>& mergedAt,
                   const std::optional<int64_t>& partsDeletedAt);
ActionsEntry entryFrom(const EntryRow& row);
// The location row an entry was read with (for a compare-and-set write).
LocationRow locationOf(const ActionsEntry& e);
void applyListing(ActionsEntry& e, const FolderListing& l);
// One listing of a folder; a failure (link, not a folder) goes to error.
FolderListing listOrError(ActionsStorage& storage, const std::string& folder, std::string& error);

// A folder name from the catalog that is one plain name (no '/', not "."
// or ".."): anything else is reported and never joined into a path.
bool isPlainFolderName(const std::string& name);

// The process writing a folder storage's temp merged file, when name is
// one: OutputFile's named temp for "merged" (".merged.cachescope-PID-HEX"),
// or "merged.tmp-PID" of cachescope before 0.10. Only merges write these
// names; the server writes merged in place.
std::optional<pid_t> mergeTempWriter(const std::string& name);
// A temp merged file of a process other than us that still runs on this
// host: a merge under way, never a leftover.
bool isLiveMergeTemp(const std::string& name);

// The server resets a merge that has not finished after 15 minutes
// (tasks/cleanup/merges.ts): before that it may still be running.
constexpr int64_t kServerMergeResetMs = 15 * 60 * 1000;

// Between a download's read of its row and its open of the first object
// the server takes milliseconds; evict waits this long after deleting rows
// before it deletes folders.
constexpr int64_t kDownloadOpenSettleMs = 1000;

} // namespace cs::actions

// A named crash point for the crash harness: CACHESCOPE_ACTIONS_KILL_AT=name[:n].
#define CS_ACTIONS_KILL_POINT(name)                                                 \
    do {                                                                            \
        static std::atomic<int> seen_{0};                                           \
        ::cs::killPointFromEnv("CACHESCOPE_ACTIONS_KILL_AT", name, seen_);          \
    } while (0)
