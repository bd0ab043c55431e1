// Garbage collection of a pack (irmin-pack style). Keeps what the roots of
// live entries reach and reclaims the rest:
//
//  1. open      take the GC lock (a dry run takes none: it writes no pack
//               file, so it runs beside a GC instead of failing); under the pack's append lock (and, with a
//               catalog, in one write transaction that bumps gc_state.epoch
//               and sets running=1) read the split point = the pack's logical
//               end, and the roots (root_offset of merged entries).
//  2. traverse  ReachabilityWalk: pop the largest offset from a priority queue,
//               read its header, push its children. Children are always at
//               smaller offsets, so a popped offset is never seen again and only
//               the frontier is held. Each live object goes into
//               (N+1).prefix as it is visited, through a block filled
//               backwards (PrefixWriter.h): a small one from the read
//               window that holds it, a larger one copied inside the kernel
//               (GenerationReader.h), so each live byte of the old pack is
//               read once; live ranges come out in decreasing order,
//               collapsed on the fly, and their records go straight into
//               (N+1).mapping (backwards, see MappingBuilder.h).
//  3. write mapping  the record stream is reversed in place into increasing order.
//  4. copy prefix    fsync of (N+1).prefix (its writeback started block by block).
//  5. swap      copy the suffix tail [split, end) to (N+1).suffix (most of it
//               before, the rest while appends are blocked); with a catalog,
//               in one transaction delete the chunk rows of collected chunks
//               and set running=0 (right for both generations, see Gc.cpp);
//               fsync, replace `control` atomically, release appends.
//  6. cleanup   delete generation N's files; store the run (gc_runs) with its
//               stats JSON.
//
// Cancelling (Job::cancel) or an error before the catalog transaction of
// step 5 removes generation N+1's files and leaves generation N and the
// catalog's chunk rows as they were. A crash at any point leaves a pack
// that opens as generation N or N+1; Pack::open removes the leftovers, and
// the next GC (or recoverInterruptedGc()) clears a stale running flag.
// File formats: docs/formats.md, "Pack generations and GC".
#pragma once
#include "core/jobs/Job.h"
#include "core/util/Json.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cs::pack { class Pack; }

namespace cs::gc {

// A half-open range [offset, offset + length) of logical pack offsets.
struct PackRange {
    uint64_t offset = 0;
    uint64_t length = 0;
    uint64_t end() const { return offset + length; }
    bool operator==(const PackRange&) const = default;
};

// getrusage figures and wall time of one step (deltas, except maxrss which
// is the process high-water mark at the end of the step).
struct StepStats {
    std::string name;        // open, traverse, write mapping, copy prefix, swap, cleanup
    double wallSeconds = 0;
    double userSeconds = 0;
    double sysSeconds = 0;
    uint64_t maxrssKiB = 0;
    uint64_t minflt = 0, majflt = 0;
    uint64_t inblock = 0, oublock = 0;
    uint64_t nvcsw = 0, nivcsw = 0;
};

struct FileSizes {
    uint64_t suffix = 0, prefix = 0, mapping = 0;
    uint64_t total() const { return suffix + prefix + mapping; }
};

struct GcStats {
    bool dryRun = false;
    std::string status;              // done, cancelled, failed
    std::string error;               // when failed
    uint64_t generationBefore = 0;
    uint64_t generation = 0;         // the new generation (== before for a dry run)
    uint64_t split = 0;              // logical end of the pack when GC started
    uint64_t roots = 0;
    uint64_t objectsVisited = 0;     // live objects below the split
    uint64_t liveBytes = 0;          // bytes of live ranges below the split
    uint64_t reclaimedBytes = 0;     // bytes below the split present before and dropped
    uint64_t ranges = 0;             // collapsed live ranges (= mapping records)
    uint64_t largestFrontier = 0;    // most offsets held in the priority queue at once
    uint64_t bytesCopied = 0;        // prefix + suffix tail
    uint64_t appendedDuringGc = 0;   // suffix bytes appended after the split, kept
    uint64_t deadObjects = 0;        // dry run only (counted by walking dead ranges)
    uint64_t chunkRowsDeleted = 0;   // catalog rows of collected chunks
    FileSizes before, after;
    std::vector<StepStats> steps;

    uint64_t packBytesBefore() const { return before.total(); }
    uint64_t packBytesAfter() const { return after.total(); }
    Json toJsonValue() const;
    std::string toJson() const;                    // the stats_json stored in gc_runs (compact)
    static GcStats fromJson(const std::string& json); // throws cs::Error
};

struct GcResult {
    GcStats stats;
    int64_t runId = -1;                  // gc_runs.id, -1 without catalog
    // Filled when GcOptions::collectRanges: live and dead ranges below the
    // split in increasing order (dead = present before the GC but unreachable).
    std::vector<PackRange> liveRanges;
    std::vector<PackRange> deadRanges;
};

struct GcOptions {
    bool dryRun = false;
    // Roots to keep. When unset, read from the catalog (required then).
    std::optional<std::vector<uint64_t>> roots;
    // The store's catalog.db; empty for a bare pack.
    std::string catalogPath;
    bool collectRanges = false;          // fill GcResult::liveRanges/deadRanges (dry run or not)
    // Insert a dry run into the catalog's gc_runs (a GC is always recorded).
    // The GUI's automatic dry runs (the Reachability view's refreshes) do not.
    bool recordDryRun = true;
    // The block the walk copies live objects through (PrefixWriter.h): the
    // granularity of the prefix's writes, of cancel checks and of the
    // "copy" hook; live ranges longer than it are copied on their own,
    // inside the kernel, in steps of it.
    size_t copyBufferBytes = 1u << 20;
    // Test hook called at named points: "open", "traverse", "write mapping",
    // "copy prefix" (after each step), "copy" (after each block of the new
    // prefix is written, during the walk),
    // "suffix", "catalog" (with a catalog), "before control", "after control",
    // "cleanup". The env var
    // CACHESCOPE_GC_KILL_AT=point[:n] raises SIGKILL at the n-th (default 1st)
    // time point is passed, for crash tests of the CLI.
    std::function<void(const char* point)> hook;
};

// Step names, in order, as given to the Job.
const std::vector<std::string>& gcStepNames();
// What a step does, in one line for a table beside its figures: "traverse"
// is where the live objects are copied into the new prefix, so "copy
// prefix" (only its fsync) is small; empty for an unknown name.
std::string gcStepWork(const std::string& step);

// GC of a bare pack (roots must be given) or with a catalog.
GcResult collectGarbage(pack::Pack& pack, const GcOptions& options, Job& job);
// GC of a store directory: DIR/pack with roots from DIR/catalog.db.
GcResult collectStoreGarbage(const std::string& storeDir, const GcOptions& options, Job& job);

// When gc_state says a GC is running but no process holds the GC lock (it
// crashed), deletes chunk rows below the pack's split that the current
// mapping does not hold and sets running=0. Returns true when it repaired.
bool recoverInterruptedGc(const std::string& catalogPath, pack::Pack& pack);

// History (gc_runs), newest first.
struct GcRun {
    int64_t id = 0;
    double started = 0;     // unix seconds
    double finished = 0;
    uint64_t generation = 0;
    bool dryRun = false;
    std::string status;
    GcStats stats;
};
std::vector<GcRun> gcHistory(const std::string& catalogPath);
GcRun gcRun(const std::string& catalogPath, int64_t id);  // throws when absent

// Two runs side by side: one row per figure, B as a percentage of A
// (percent < 0 when A is 0).
struct GcCompareRow {
    std::string figure;     // "objects_visited", "traverse.wall_s", ...
    double a = 0, b = 0;
    double percent = -1;
};
std::vector<GcCompareRow> compareGcRuns(const GcStats& a, const GcStats& b);

} // namespace cs::gc
