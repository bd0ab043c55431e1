// The GC's view of the store's catalog.db: only the tables the store's
// migration 1 creates and the GC protocol uses (it creates none itself):
//   entries(root_offset, state)            roots = root_offset of merged entries
//   chunks(sha256 BLOB PRIMARY KEY, offset, raw_size, stored_size)   dedup index
//   gc_state(id=1, epoch, running, split, started)
//   gc_runs(id, started, finished, generation, dry_run, status, stats_json)
// Protocol: begin() is ONE write transaction (BEGIN IMMEDIATE) that holds the
// pack's append lock while it reads the split, bumps epoch, sets running=1
// and split, and reads the roots; merges that see the epoch change when they
// commit redo themselves, and during a GC dedup only uses chunk rows at or
// above split. finish() is one transaction that deletes the rows of collected
// chunks, sets running=0 and stores the run.
#pragma once
#include "core/gc/Gc.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cs::pack { class Pack; }
namespace cs::store { class Catalog; }

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
    std::vector<GcRun> runs(int64_t onlyId = -1);

private:
    std::string path_;
    std::unique_ptr<store::Catalog> catalog_;
};

} // namespace cs::gc
