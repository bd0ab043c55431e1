// Crash-test kill points driven by an environment variable: with
// VARIABLE=point[:n] set, the n-th (default 1st) pass of `point` raises
// SIGKILL, so tests can crash a CLI process at a named place; with
// VARIABLE=stop:point[:n] that pass raises SIGSTOP instead (a test holds the
// work there and lets it go on with SIGCONT). Unset: a getenv and nothing
// else. The variables and their points (the crash tests name them; the
// names are a contract with those tests):
//
//   CACHESCOPE_STORE_KILL_AT    the store's points, killpoints::store below
//   CACHESCOPE_GC_KILL_AT       the GC's step hooks (GcOptions::hook, core/gc/Gc.h):
//                               "open", "traverse", "copy", "write mapping",
//                               "copy prefix", "suffix", "catalog",
//                               "before control", "after control", "cleanup"
//   CACHESCOPE_ACTIONS_KILL_AT  a server-store write (CS_ACTIONS_KILL_POINT):
//                               merge "merge-started", "part-copied",
//                               "merged-synced", "merged-published",
//                               "merged-at-set", "part-deleted",
//                               "parts-folder-deleted", "parts-deleted-at-set";
//                               evict "evict-rows-deleted",
//                               "evict-folder-deleted",
//                               "orphan-location-deleted", "orphan-folder-deleted"
#pragma once
#include <atomic>

namespace cs {

// `seen` counts passes of the named point; each variable keeps its own.
void killPointFromEnv(const char* variable, const char* point, std::atomic<int>& seen);

namespace killpoints::store {
constexpr const char* kVariable = "CACHESCOPE_STORE_KILL_AT";
constexpr const char* kEvictRemove = "evict remove";       // evict: before each evicted entry's parts go
constexpr const char* kReplaceRemove = "replace remove";   // commit: before a replaced entry's parts go
constexpr const char* kMergeAppended = "merge appended";   // merge: objects appended and synced, before its commit
constexpr const char* kMergeRemove = "merge remove";       // merge: committed, before its parts go
constexpr const char* kPartRemoved = "part removed";       // after each part file is deleted
constexpr const char* kOrphanRenamed = "orphan renamed";   // fsck --repair: a folder set aside, not yet deleted
constexpr const char* kPutAppended = "put appended";       // putMerged: objects appended and synced, before its commit
constexpr const char* kPartsWritten = "parts written";     // commit of parts: all written, before their one sync and the row
} // namespace killpoints::store

} // namespace cs
