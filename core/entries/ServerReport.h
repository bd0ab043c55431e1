// The whole cache server at a glance (`actions-cache report`, the GUI's
// Report tab): where the bytes are (key families, scopes, repos), how long
// since they were last downloaded, what is still there past the server's
// retention and why, the compression of the blobs and how much of them
// would restore serially, how much repeats across entries, and the verify
// findings counted. Built from the size index (SizeIndex.h) in one pass
// over its entries (memory is the groups, not the entries), then the
// decode pass over the blobs (RepetitionPass.h) unless --no-repetition.
//
// JSON (issue 28's contract; fields may be added, these stay):
//   {"entries", "bytes", "families": [{"family","entries","bytes","newest_ms","oldest_ms"}],
//    "scopes": [{"scope","entries","bytes"}], "repos": [{"repo_id","entries","bytes"}],
//    "age": [{"from_days","to_days","entries","bytes"}], "never_downloaded": {"entries","bytes"},
//    "past_retention": {"days","entries","bytes"}, "compression": {"formats": {...}, "serial_bytes"},
//    "repetition": {"total_bytes","estimated_unique_bytes","error_bytes"},
//    "health": {"orphan_bytes","missing_objects","unfinished_uploads","unfinished_upload_bytes","unfinished_merges"}}
// Added: past_retention's eligible_for_cleanup, by_reason, listed and list;
// health's orphan_folders, stalled_merges and findings; the notes; index; now_ms.
// serverReportFromJson reads them back when present.
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/actions-cache/SizeIndex.h"
#include "core/store/Chunker.h"
#include "core/util/Json.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cs {
class Job;
}

namespace cs::entries {

using actions::ActionsCache;
using actions::IndexRefreshStats;

// The server's default retention (lib/schemas.ts of v9.4.7 says 90; the
// issue's contract, and the meta description of v9.4.7's
// tasks/cleanup/cache-entries.ts, say 30: the contract wins).
constexpr int kDefaultRetentionDays = 30;
// How many entries past the retention the report names (the oldest); the
// counts and bytes are over all of them. Memory is this list, not the server.
constexpr size_t kDefaultRetentionList = 1000;

struct ReportOptions {
    int retentionDays = kDefaultRetentionDays;
    bool repetition = true;               // the decode pass (--no-repetition: off)
    uint64_t memoryBytes = uint64_t(256) << 20;
    bool fullScan = false;                // rescan every folder (S3: finds new orphans)
    int64_t nowMs = 0;                    // 0: the clock
    size_t retentionList = kDefaultRetentionList;   // past_retention.list: the oldest this many
    // The native store's chunks the repetition estimate is for: a real
    // store's default (tests cut small chunks to sample thousands of them).
    store::ChunkerParams chunker;
};

struct GroupFigure {
    std::string name;
    uint64_t entries = 0, bytes = 0;
    int64_t newestMs = 0, oldestMs = 0;   // updatedAt of the newest and the oldest entry
};

struct AgeBucket {
    int fromDays = 0;
    std::optional<int> toDays;            // nullopt: and older
    uint64_t entries = 0, bytes = 0;
};

// Why an entry past the retention is still on the server (tasks/cleanup/cache-entries.ts).
enum class RetentionReason {
    NeverDownloaded,  // lastDownloadedAt NULL: `lastDownloadedAt < cutoff` never matches NULL
    AwaitingCleanup,  // eligible: the daily run (00:00) has not reached it yet, or skipped it (OFFSET paging)
};
const char* retentionReasonName(RetentionReason r);   // "never-downloaded", "awaiting-cleanup"

struct RetainedEntry {
    std::string id, key, version, scope, repoId;
    uint64_t bytes = 0;
    int64_t lastUsedMs = 0;               // lastDownloadedAt, else updatedAt
    RetentionReason reason = RetentionReason::NeverDownloaded;
    std::string explanation;              // one sentence
};

struct ServerReport {
    uint64_t entries = 0, bytes = 0;
    std::vector<GroupFigure> families, scopes, repos;   // largest first
    std::vector<AgeBucket> age;
    uint64_t neverDownloadedEntries = 0, neverDownloadedBytes = 0;
    int retentionDays = kDefaultRetentionDays;
    uint64_t pastRetentionEntries = 0, pastRetentionBytes = 0;
    uint64_t eligibleForCleanup = 0;      // downloaded before the cutoff: what the next run selects
    // Per reason (RetentionReason's order): entries and bytes past the retention.
    uint64_t pastRetentionByReason[2] = {0, 0}, pastRetentionBytesByReason[2] = {0, 0};
    // The oldest ReportOptions::retentionList of them, oldest last use first.
    std::vector<RetainedEntry> pastRetention;
    // Compression and repetition (the decode pass); nullopt when not computed.
    std::optional<std::map<std::string, uint64_t>> formats;   // "tar+zstd", "tar+gzip", "zstd", "gzip", "other"
    std::optional<uint64_t> serialBytes;
    std::string compressionNote;          // why it is missing, when it is
    std::optional<uint64_t> repetitionTotal, repetitionUnique, repetitionError;
    std::string repetitionNote;
    double samplingRate = 0;              // share of chunks sampled (1 while --memory holds them all, then halved)
    uint64_t undecodedBlobs = 0, undecodedBytes = 0;   // zstd windows above the budget: left out
    uint64_t unreadableBlobs = 0;
    // Health: the verify findings, counted.
    uint64_t orphanBytes = 0, orphanFolders = 0, missingObjects = 0, unfinishedUploads = 0,
             unfinishedUploadBytes = 0, unfinishedMerges = 0, stalledMerges = 0;
    std::map<std::string, uint64_t> findings;   // kind -> count
    IndexRefreshStats index;
    int64_t nowMs = 0;
};

// Refreshes the size index, then reads it once. Read-only on the server's
// data. Progress and cancel through job.
ServerReport buildServerReport(ActionsCache& cache, const ReportOptions& options, Job& job);

Json serverReportJson(const ServerReport& r);
std::string serverReportText(const ServerReport& r);
// The figures back from serverReportJson's document (the GUI draws the
// CLI's --plot from it); throws cs::Error naming `what` on another shape.
ServerReport serverReportFromJson(const Json& j, const std::string& what);
// One table: section,name,entries,bytes,from_days,to_days (what a spreadsheet or plot script wants).
std::string serverReportCsv(const ServerReport& r);

} // namespace cs::entries
