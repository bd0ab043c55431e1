#include "core/gc/GcCatalog.h"

#include "core/pack/Pack.h"
#include "core/util/Error.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>

namespace cs::gc {

namespace {

class Statement {
public:
    Statement(sqlite3* db, const std::string& path, const char* sql) : path_(path)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
            fail(path, std::string("catalog query failed: ") + sqlite3_errmsg(db));
    }
    ~Statement() { sqlite3_finalize(st_); }
    sqlite3_stmt* get() { return st_; }
    bool step()
    {
        const int rc = sqlite3_step(st_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        fail(path_, std::string("catalog query failed: ") + sqlite3_errmsg(sqlite3_db_handle(st_)));
    }
    void reset() { sqlite3_reset(st_); sqlite3_clear_bindings(st_); }

private:
    std::string path_;
    sqlite3_stmt* st_ = nullptr;
};

double now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace

GcCatalog::GcCatalog(const std::string& path) : path_(path)
{
    if (!std::filesystem::exists(path))
        fail(path, "no catalog here (not a cachescope store?)");
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        fail(path, "cannot open the catalog: " + msg);
    }
    sqlite3_busy_timeout(db_, 30000);
}

GcCatalog::~GcCatalog()
{
    sqlite3_close(db_);
}

void GcCatalog::exec(const char* sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        fail(path_, "catalog update failed: " + msg);
    }
}

GcCatalog::Start GcCatalog::begin(pack::Pack& pack, bool dryRun)
{
    Start s;
    s.started = now();
    exec(dryRun ? "BEGIN" : "BEGIN IMMEDIATE");
    try {
        {
            // No append may land between reading the split and reading the roots.
            auto appends = pack.lockAppends();
            pack.reload();
            s.split = pack.end();
            if (!dryRun) {
                exec("INSERT OR IGNORE INTO gc_state(id, epoch, running, split, started) VALUES (1, 0, 0, 0, 0)");
                Statement up(db_, path_, "UPDATE gc_state SET epoch = epoch + 1, running = 1, split = ?, started = ? "
                                         "WHERE id = 1");
                sqlite3_bind_int64(up.get(), 1, int64_t(s.split));
                sqlite3_bind_double(up.get(), 2, s.started);
                up.step();
                Statement ep(db_, path_, "SELECT epoch FROM gc_state WHERE id = 1");
                if (ep.step())
                    s.epoch = uint64_t(sqlite3_column_int64(ep.get(), 0));
            }
            Statement roots(db_, path_, "SELECT root_offset FROM entries WHERE state = 'merged' AND root_offset IS NOT NULL");
            while (roots.step())
                s.roots.push_back(uint64_t(sqlite3_column_int64(roots.get(), 0)));
            exec("COMMIT");
        }
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    return s;
}

std::vector<GcCatalog::ChunkRow> GcCatalog::deadChunkRows(uint64_t split, const std::function<bool(uint64_t)>& isLive)
{
    std::vector<ChunkRow> dead;
    Statement q(db_, path_, "SELECT sha256, offset FROM chunks WHERE offset < ?");
    sqlite3_bind_int64(q.get(), 1, int64_t(split));
    while (q.step()) {
        const uint64_t offset = uint64_t(sqlite3_column_int64(q.get(), 1));
        if (isLive(offset))
            continue;
        const void* blob = sqlite3_column_blob(q.get(), 0);
        const int n = sqlite3_column_bytes(q.get(), 0);
        dead.push_back({std::string(static_cast<const char*>(blob), size_t(n)), offset});
    }
    return dead;
}

int64_t GcCatalog::finish(const std::vector<ChunkRow>& deadRows, const GcStats* stats, double started,
                          bool clearRunning)
{
    exec("BEGIN IMMEDIATE");
    try {
        Statement del(db_, path_, "DELETE FROM chunks WHERE sha256 = ? AND offset = ?");
        for (const auto& row : deadRows) {
            sqlite3_bind_blob(del.get(), 1, row.sha256.data(), int(row.sha256.size()), SQLITE_STATIC);
            sqlite3_bind_int64(del.get(), 2, int64_t(row.offset));
            del.step();
            del.reset();
        }
        if (clearRunning)
            exec("UPDATE gc_state SET running = 0 WHERE id = 1");
        if (!stats) {
            exec("COMMIT");
            return -1;
        }
        Statement ins(db_, path_, "INSERT INTO gc_runs(started, finished, generation, dry_run, status, stats_json) "
                                  "VALUES (?, ?, ?, ?, ?, ?)");
        const std::string json = stats->toJson();
        sqlite3_bind_double(ins.get(), 1, started);
        sqlite3_bind_double(ins.get(), 2, now());
        sqlite3_bind_int64(ins.get(), 3, int64_t(stats->generation));
        sqlite3_bind_int(ins.get(), 4, stats->dryRun ? 1 : 0);
        sqlite3_bind_text(ins.get(), 5, stats->status.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins.get(), 6, json.c_str(), int(json.size()), SQLITE_TRANSIENT);
        ins.step();
        const int64_t id = sqlite3_last_insert_rowid(db_);
        exec("COMMIT");
        return id;
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

bool GcCatalog::running()
{
    Statement q(db_, path_, "SELECT running FROM gc_state WHERE id = 1");
    return q.step() && sqlite3_column_int64(q.get(), 0) != 0;
}

std::vector<GcRun> GcCatalog::runs(int64_t onlyId)
{
    std::vector<GcRun> out;
    Statement q(db_, path_, onlyId >= 0
                                ? "SELECT id, started, finished, generation, dry_run, status, stats_json FROM gc_runs WHERE id = ?"
                                : "SELECT id, started, finished, generation, dry_run, status, stats_json FROM gc_runs ORDER BY id DESC");
    if (onlyId >= 0)
        sqlite3_bind_int64(q.get(), 1, onlyId);
    while (q.step()) {
        GcRun r;
        r.id = sqlite3_column_int64(q.get(), 0);
        r.started = sqlite3_column_double(q.get(), 1);
        r.finished = sqlite3_column_double(q.get(), 2);
        r.generation = uint64_t(sqlite3_column_int64(q.get(), 3));
        r.dryRun = sqlite3_column_int64(q.get(), 4) != 0;
        const unsigned char* status = sqlite3_column_text(q.get(), 5);
        r.status = status ? reinterpret_cast<const char*>(status) : "";
        const unsigned char* json = sqlite3_column_text(q.get(), 6);
        if (json && *json) {
            try {
                r.stats = GcStats::fromJson(reinterpret_cast<const char*>(json));
            } catch (const Error& e) {
                r.stats.error = "stats_json of run " + std::to_string(r.id) + " is unreadable: " + e.what();
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace cs::gc
