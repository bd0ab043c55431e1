#include "core/gc/GcCatalog.h"

#include "core/pack/Pack.h"
#include "core/store/Catalog.h"
#include "core/util/Error.h"

#include <chrono>
#include <filesystem>

namespace cs::gc {

using store::Catalog;
using store::OpenMode;
using store::Statement;
using store::Transaction;

namespace {

double now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace

GcCatalog::GcCatalog(const std::string& path, bool readOnly) : path_(path)
{
    if (!std::filesystem::exists(path))
        fail(path, "no catalog here (not a cachescope store?)");
    // The schema is checked on a connection that changes nothing before a
    // GC trusts the catalog's roots: an empty or foreign catalog has no
    // roots, and a GC from it would drop every object.
    {
        Catalog probe(path, OpenMode::ReadOnly);
        store::checkStoreSchema(probe);
    }
    catalog_ = std::make_unique<Catalog>(path, readOnly ? OpenMode::ReadOnly : OpenMode::ReadWrite);
}

GcCatalog::~GcCatalog() = default;

GcCatalog::Start GcCatalog::begin(pack::Pack& pack, bool dryRun)
{
    Start s;
    s.started = now();
    Transaction tx(*catalog_, dryRun ? Transaction::Deferred : Transaction::Immediate);
    {
        // No append may land between reading the split and reading the roots.
        auto appends = pack.lockAppends();
        pack.reload();
        s.split = pack.end();
        if (!dryRun) {
            catalog_->exec("INSERT OR IGNORE INTO gc_state(id, epoch, running, split, started) VALUES (1, 0, 0, 0, 0)");
            catalog_->prepare("UPDATE gc_state SET epoch = epoch + 1, running = 1, split = ?1, started = ?2 WHERE id = 1")
                .bind(1, s.split)
                .bind(2, s.started)
                .run();
            auto ep = catalog_->prepare("SELECT epoch FROM gc_state WHERE id = 1");
            if (ep.step())
                s.epoch = uint64_t(ep.i64(0));
        }
        auto roots = catalog_->prepare(
            "SELECT root_offset, id FROM entries WHERE state = 'merged' AND root_offset IS NOT NULL ORDER BY id");
        while (roots.step()) {
            s.roots.push_back(uint64_t(roots.i64(0)));
            s.rootEntries.push_back(roots.i64(1));
        }
        tx.commit();
    }
    return s;
}

std::string GcCatalog::entryKey(int64_t id)
{
    auto q = catalog_->prepare("SELECT key FROM entries WHERE id = ?1");
    q.bind(1, id);
    return q.step() ? q.text(0) : std::string();
}

std::vector<GcCatalog::ChunkRow> GcCatalog::deadChunkRows(uint64_t split, const std::function<bool(uint64_t)>& isLive)
{
    auto lock = catalog_->lock();
    std::vector<ChunkRow> dead;
    auto q = catalog_->prepare("SELECT sha256, offset FROM chunks WHERE offset < ?1");
    q.bind(1, split);
    while (q.step()) {
        const uint64_t offset = uint64_t(q.i64(1));
        if (isLive(offset))
            continue;
        dead.push_back({q.blob(0), offset});
    }
    return dead;
}

int64_t GcCatalog::finish(const std::vector<ChunkRow>& deadRows, const GcStats* stats, double started,
                          bool clearRunning)
{
    Transaction tx(*catalog_, Transaction::Immediate);
    auto del = catalog_->prepare("DELETE FROM chunks WHERE sha256 = ?1 AND offset = ?2");
    for (const auto& row : deadRows) {
        del.reset();
        del.bindBlob(1, row.sha256.data(), row.sha256.size()).bind(2, row.offset).run();
    }
    if (clearRunning)
        catalog_->exec("UPDATE gc_state SET running = 0 WHERE id = 1");
    int64_t id = -1;
    if (stats) {
        catalog_->prepare("INSERT INTO gc_runs(started, finished, generation, dry_run, status, stats_json) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .bind(1, started)
            .bind(2, now())
            .bind(3, stats->generation)
            .bind(4, stats->dryRun ? 1 : 0)
            .bindText(5, stats->status)
            .bindText(6, stats->toJson())
            .run();
        id = catalog_->lastInsertId();
    }
    tx.commit();
    return id;
}

bool GcCatalog::running()
{
    auto lock = catalog_->lock();
    auto q = catalog_->prepare("SELECT running FROM gc_state WHERE id = 1");
    return q.step() && q.i64(0) != 0;
}

std::vector<GcRun> GcCatalog::runs(int64_t onlyId)
{
    auto lock = catalog_->lock();
    std::vector<GcRun> out;
    auto q = catalog_->prepare(
        onlyId >= 0 ? "SELECT id, started, finished, generation, dry_run, status, stats_json FROM gc_runs WHERE id = ?1"
                    : "SELECT id, started, finished, generation, dry_run, status, stats_json FROM gc_runs ORDER BY id DESC");
    if (onlyId >= 0)
        q.bind(1, onlyId);
    while (q.step()) {
        GcRun r;
        r.id = q.i64(0);
        r.started = q.real(1);
        r.finished = q.real(2);
        r.generation = uint64_t(q.i64(3));
        r.dryRun = q.i64(4) != 0;
        r.status = q.text(5);
        const std::string json = q.text(6);
        if (!json.empty()) {
            try {
                r.stats = GcStats::fromJson(json);
            } catch (const Error& e) {
                r.stats.error = "stats_json of run " + std::to_string(r.id) + " is unreadable: " + e.what();
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace cs::gc
