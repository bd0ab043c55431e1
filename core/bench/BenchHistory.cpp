#include "core/bench/Bench.h"

#include "core/util/Error.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>

namespace cs {

namespace {

constexpr const char* kCreateTables =
    "CREATE TABLE IF NOT EXISTS bench_runs(id INTEGER PRIMARY KEY, scenario TEXT, params_json TEXT,"
    " started REAL, finished REAL, version TEXT, machine TEXT, status TEXT, result_json TEXT);"
    "CREATE TABLE IF NOT EXISTS bench_samples(run_id INTEGER, t REAL, series TEXT, value REAL);"
    "CREATE INDEX IF NOT EXISTS bench_samples_run ON bench_samples(run_id);";

class Statement {
public:
    Statement(sqlite3* db, const std::string& path, const char* sql) : path_(path)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
            fail(path, std::string("cannot prepare a query: ") + sqlite3_errmsg(db));
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    void bind(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.data(), int(s.size()), SQLITE_TRANSIENT); }
    void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
    void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
    bool step()
    {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        fail(path_, std::string("database error: ") + sqlite3_errmsg(sqlite3_db_handle(stmt_)));
    }
    void reset() { sqlite3_reset(stmt_); sqlite3_clear_bindings(stmt_); }
    std::string text(int i) const
    {
        const auto* p = sqlite3_column_text(stmt_, i);
        return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, i))) : std::string();
    }
    double real(int i) const { return sqlite3_column_double(stmt_, i); }
    int64_t integer(int i) const { return sqlite3_column_int64(stmt_, i); }

private:
    sqlite3_stmt* stmt_ = nullptr;
    std::string path_;
};

Json parseOrNull(const std::string& text)
{
    if (text.empty())
        return Json();
    try {
        return parseJson(text, "benchmark history");
    } catch (const Error&) {
        return Json();
    }
}

std::string paramsJson(const std::map<std::string, std::string>& params)
{
    Json j = Json::object();
    for (const auto& [k, v] : params)
        j[k] = v;
    return dumpJson(j);
}

} // namespace

std::string BenchHistory::defaultPath()
{
    const char* xdg = std::getenv("XDG_DATA_HOME");
    std::string base;
    if (xdg && *xdg) {
        base = xdg;
    } else {
        const char* home = std::getenv("HOME");
        base = std::string(home && *home ? home : "/tmp") + "/.local/share";
    }
    return base + "/cachescope/bench-history.db";
}

static sqlite3* openDb(const std::string& path, bool create)
{
    sqlite3* db = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
        const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        fail(path, "cannot open the database: " + msg);
    }
    sqlite3_busy_timeout(db, 10000);
    return db;
}

BenchHistory BenchHistory::openFile(const std::string& path)
{
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    BenchHistory h;
    h.path_ = path;
    h.db_ = openDb(path, true);
    h.exec("PRAGMA journal_mode=WAL");
    h.exec(kCreateTables);
    return h;
}

BenchHistory BenchHistory::openDefault() { return openFile(defaultPath()); }

BenchHistory BenchHistory::openStore(const std::string& storeDir)
{
    const std::string path = storeDir + "/catalog.db";
    if (!std::filesystem::exists(path))
        fail(storeDir, "not a cachescope store (no catalog.db)");
    BenchHistory h;
    h.path_ = path;
    h.db_ = openDb(path, false);
    Statement q(h.db_, path, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('bench_runs','bench_samples')");
    q.step();
    if (q.integer(0) != 2)
        fail(path, "the store's catalog has no benchmark tables (open it once with this version to migrate it)");
    return h;
}

BenchHistory::BenchHistory(BenchHistory&& o) noexcept : db_(o.db_), path_(std::move(o.path_)) { o.db_ = nullptr; }

BenchHistory& BenchHistory::operator=(BenchHistory&& o) noexcept
{
    if (this != &o) {
        sqlite3_close(db_);
        db_ = o.db_;
        path_ = std::move(o.path_);
        o.db_ = nullptr;
    }
    return *this;
}

BenchHistory::~BenchHistory() { sqlite3_close(db_); }

void BenchHistory::exec(const char* sql) const
{
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        fail(path_, "database error: " + msg);
    }
}

int64_t BenchHistory::save(BenchRun& run)
{
    exec("BEGIN IMMEDIATE");
    try {
        Statement ins(db_, path_,
                      "INSERT INTO bench_runs(scenario, params_json, started, finished, version, machine, status, result_json)"
                      " VALUES(?,?,?,?,?,?,?,?)");
        ins.bind(1, run.scenario);
        ins.bind(2, paramsJson(run.params));
        ins.bind(3, run.started);
        ins.bind(4, run.finished);
        ins.bind(5, run.version);
        ins.bind(6, run.machine.toJson());
        ins.bind(7, run.status);
        Json result = run.result.toJsonValue();
        if (!run.error.empty())
            result["error"] = run.error;
        ins.bind(8, dumpJson(result));
        ins.step();
        run.id = sqlite3_last_insert_rowid(db_);
        Statement s(db_, path_, "INSERT INTO bench_samples(run_id, t, series, value) VALUES(?,?,?,?)");
        for (const auto& sample : run.samples) {
            s.bind(1, run.id);
            s.bind(2, sample.t);
            s.bind(3, sample.series);
            s.bind(4, sample.value);
            s.step();
            s.reset();
        }
        exec("COMMIT");
    } catch (...) {
        exec("ROLLBACK");
        throw;
    }
    return run.id;
}

static BenchRun runFromRow(Statement& q)
{
    BenchRun r;
    r.id = q.integer(0);
    r.scenario = q.text(1);
    const Json params = parseOrNull(q.text(2));
    if (params.is_object())
        for (const auto& [k, v] : params.items())
            r.params[k] = text(v);
    r.started = q.real(3);
    r.finished = q.real(4);
    r.version = q.text(5);
    r.machine = MachineInfo::fromJson(parseOrNull(q.text(6)));
    r.status = q.text(7);
    const Json result = parseOrNull(q.text(8));
    r.result = ResultTable::fromJson(result);
    r.error = text(field(result, "error"));
    return r;
}

std::vector<BenchRun> BenchHistory::list(const std::string& scenario) const
{
    Statement q(db_, path_,
                "SELECT id, scenario, params_json, started, finished, version, machine, status, result_json"
                " FROM bench_runs WHERE ?1 = '' OR scenario = ?1 ORDER BY id DESC");
    q.bind(1, scenario);
    std::vector<BenchRun> runs;
    while (q.step())
        runs.push_back(runFromRow(q));
    return runs;
}

std::optional<BenchRun> BenchHistory::load(int64_t id) const
{
    Statement q(db_, path_,
                "SELECT id, scenario, params_json, started, finished, version, machine, status, result_json"
                " FROM bench_runs WHERE id = ?");
    q.bind(1, id);
    if (!q.step())
        return std::nullopt;
    BenchRun r = runFromRow(q);
    Statement s(db_, path_, "SELECT t, series, value FROM bench_samples WHERE run_id = ? ORDER BY rowid");
    s.bind(1, id);
    while (s.step())
        r.samples.push_back({s.real(0), s.text(1), s.real(2)});
    return r;
}

Json runToJson(const BenchRun& run, bool withSamples)
{
    Json j = Json::object();
    j["id"] = run.id;
    j["scenario"] = run.scenario;
    Json params = Json::object();
    for (const auto& [k, v] : run.params)
        params[k] = v;
    j["params"] = std::move(params);
    j["started"] = run.started;
    j["finished"] = run.finished;
    j["version"] = run.version;
    j["machine"] = run.machine.toJsonValue();
    j["status"] = run.status;
    j["error"] = run.error;
    j["result"] = run.result.toJsonValue();
    if (withSamples) {
        Json samples = Json::array();
        for (const auto& s : run.samples) {
            Json o = Json::object();
            o["t"] = s.t;
            o["series"] = s.series;
            o["value"] = s.value;
            samples.push_back(std::move(o));
        }
        j["samples"] = std::move(samples);
    }
    return j;
}

bool BenchHistory::remove(int64_t id)
{
    exec("BEGIN IMMEDIATE");
    try {
        Statement a(db_, path_, "DELETE FROM bench_samples WHERE run_id = ?");
        a.bind(1, id);
        a.step();
        Statement b(db_, path_, "DELETE FROM bench_runs WHERE id = ?");
        b.bind(1, id);
        b.step();
        const bool removed = sqlite3_changes(db_) > 0;
        exec("COMMIT");
        return removed;
    } catch (...) {
        exec("ROLLBACK");
        throw;
    }
}

} // namespace cs
