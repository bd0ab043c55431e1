// The GC's view of the store's catalog.db: only the tables the store's
// migration 1 creates and the GC protocol uses (it creates none itself):
//   entries(root_offset, state)            roots = root_offset of merged entries
//   chunks(sha256 BLOB PRIMARY KEY, offset, raw_size, stored_size)   dedup index
//   gc_state(id=1, epoch, running, split, started)
//   gc_runs(id, started, finished, generation, dry_run, status, stats_json)
//
// GC contract (the one statement of it; merges in core/store, eviction and
// the GC rely on exactly this):
//  * A GC starts with ONE write transaction (begin(): BEGIN IMMEDIATE) during
//    which it holds the pack append lock (Pack::lockAppends) to read the split
//    (= pack end), increments gc_state.epoch, sets gc_state.running=1 and
//    .split, and reads the roots (root_offset of entries in state 'merged').
//  * Every merge reads gc_state.epoch when it starts and re-reads it in its
//    commit transaction (BEGIN IMMEDIATE). If the epoch changed, the merge is
//    redone from its parts (objects it appended or reused may lie below the new
//    split without being reachable from the GC's roots). Objects appended after
//    the GC's start transaction lie >= split and GC keeps everything >= split.
//  * While gc_state.running=1, dedup lookups only use chunk rows with
//    offset >= gc_state.split. When a merge commits a chunk row whose SHA-256
//    already has a row below the split during a GC, the row is moved to the new
//    offset (>= split).
//  * The GC deletes the chunk rows of chunks it collected in its final
//    transaction (finish(): WHERE sha256=? AND offset=?, so a row moved above
//    the split stays), and sets running=0.
//  * Eviction only deletes catalog rows and parts; pack space is reclaimed by GC.
#pragma once
#include "core/gc/Gc.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cs::pack { class Pack; }
namespace cs::sqlite { class Database; }

namespace cs::gc {

class GcCatalog {
public:
    // Opens the store's catalog through the one SQLite layer after checking
    // its schema (store::checkStoreSchema: an empty, foreign, damaged or
    // newer catalog is refused). readOnly: a dry run's reads only.
    explicit GcCatalog(const std::string& path, bool readOnly = false);
    ~GcCatalog();
    GcCatalog(const GcCatalog&) = delete;
    GcCatalog& operator=(const GcCatalog&) = delete;

    struct Start {
        uint64_t epoch = 0;
        uint64_t split = 0;
        double started = 0;
        std::vector<uint64_t> roots;
        std::vector<int64_t> rootEntries;   // the entry id of each root
    };
    // A dry run only reads (split and roots, consistently); gc_state is untouched.
    Start begin(pack::Pack& pack, bool dryRun);

    // Chunk rows below split whose offset isLive() rejects.
    struct ChunkRow {
        std::string sha256;
        uint64_t offset = 0;
    };
    std::vector<ChunkRow> deadChunkRows(uint64_t split, const std::function<bool(uint64_t)>& isLive);
    // One transaction: delete those rows (by sha256 AND offset, so a row a
    // merge moved above the split meanwhile stays), running=0 when
    // clearRunning, insert the run when stats is given. Returns the run's id
    // (-1 without stats).
    int64_t finish(const std::vector<ChunkRow>& deadRows, const GcStats* stats, double started,
                   bool clearRunning);

    bool running();
    // The key of entry id, to name it in an error ("" when it is gone).
    std::string entryKey(int64_t id);
    std::vector<GcRun> runs(int64_t onlyId = -1);

private:
    std::string path_;
    std::unique_ptr<sqlite::Database> catalog_;
};

} // namespace cs::gc
