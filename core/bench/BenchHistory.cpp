#include "core/bench/Bench.h"

#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "core/util/Sqlite.h"

#include <cstdlib>
#include <filesystem>

namespace cs {

namespace {

constexpr const char* kCreateTables =
    "CREATE TABLE IF NOT EXISTS bench_runs(id INTEGER PRIMARY KEY, scenario TEXT, params_json TEXT,"
    " started REAL, finished REAL, version TEXT, machine TEXT, status TEXT, result_json TEXT);"
    "CREATE TABLE IF NOT EXISTS bench_samples(run_id INTEGER, t REAL, series TEXT, value REAL);"
    "CREATE INDEX IF NOT EXISTS bench_samples_run ON bench_samples(run_id);";

using sqlite::Database;
using sqlite::OpenMode;
using sqlite::Statement;
using sqlite::Transaction;

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

BenchHistory BenchHistory::openFile(const std::string& path)
{
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    BenchHistory h;
    h.path_ = path;
    h.db_ = std::make_unique<Database>(path, OpenMode::Create, sqlite::busy::kBenchHistoryMs);
    h.db_->exec(kCreateTables);
    return h;
}

BenchHistory BenchHistory::openDefault() { return openFile(defaultPath()); }

BenchHistory BenchHistory::openStore(const std::string& storeDir)
{
    const std::string path = store::StoreLayout::open(storeDir).storeCatalogPath();
    BenchHistory h;
    h.path_ = path;
    h.db_ = std::make_unique<Database>(path, OpenMode::ReadWrite, sqlite::busy::kBenchHistoryMs);
    Statement q = h.db_->prepare(
        "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('bench_runs','bench_samples')");
    q.step();
    if (q.i64(0) != 2)
        fail(path, "the store's catalog has no benchmark tables (open it once with this version to migrate it)");
    return h;
}

BenchHistory::BenchHistory() = default;
BenchHistory::BenchHistory(BenchHistory&&) noexcept = default;
BenchHistory& BenchHistory::operator=(BenchHistory&&) noexcept = default;
BenchHistory::~BenchHistory() = default;

int64_t BenchHistory::save(BenchRun& run)
{
    Transaction write(*db_, Transaction::Immediate);
    Statement ins = db_->prepare(
        "INSERT INTO bench_runs(scenario, params_json, started, finished, version, machine, status, result_json)"
        " VALUES(?,?,?,?,?,?,?,?)");
    ins.bindText(1, run.scenario);
    ins.bindText(2, paramsJson(run.params));
    ins.bind(3, run.started);
    ins.bind(4, run.finished);
    ins.bindText(5, run.version);
    ins.bindText(6, run.machine.toJson());
    ins.bindText(7, run.status);
    Json result = run.result.toJsonValue();
    if (!run.error.empty())
        result["error"] = run.error;
    ins.bindText(8, dumpJson(result));
    ins.run();
    run.id = db_->lastInsertId();
    Statement s = db_->prepare("INSERT INTO bench_samples(run_id, t, series, value) VALUES(?,?,?,?)");
    for (const auto& sample : run.samples) {
        s.bind(1, run.id);
        s.bind(2, sample.t);
        s.bindText(3, sample.series);
        s.bind(4, sample.value);
        s.run();
        s.reset();
    }
    write.commit();
    return run.id;
}

static BenchRun runFromRow(Statement& q)
{
    BenchRun r;
    r.id = q.i64(0);
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
    auto held = db_->lock();
    Statement q = db_->prepare("SELECT id, scenario, params_json, started, finished, version, machine, status, result_json"
                               " FROM bench_runs WHERE ?1 = '' OR scenario = ?1 ORDER BY id DESC");
    q.bindText(1, scenario);
    std::vector<BenchRun> runs;
    while (q.step())
        runs.push_back(runFromRow(q));
    return runs;
}

std::optional<BenchRun> BenchHistory::load(int64_t id) const
{
    auto held = db_->lock();
    Statement q = db_->prepare("SELECT id, scenario, params_json, started, finished, version, machine, status, result_json"
                               " FROM bench_runs WHERE id = ?");
    q.bind(1, id);
    if (!q.step())
        return std::nullopt;
    BenchRun r = runFromRow(q);
    Statement s = db_->prepare("SELECT t, series, value FROM bench_samples WHERE run_id = ? ORDER BY rowid");
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

BenchRun runFromJson(const Json& j)
{
    BenchRun r;
    r.id = int64_t(number(field(j, "id")));
    r.scenario = text(field(j, "scenario"));
    const Json& params = field(j, "params");
    if (params.is_object())
        for (const auto& [k, v] : params.items())
            r.params[k] = text(v);
    r.started = number(field(j, "started"));
    r.finished = number(field(j, "finished"));
    r.version = text(field(j, "version"));
    r.machine = MachineInfo::fromJson(field(j, "machine"));
    r.status = text(field(j, "status"));
    r.error = text(field(j, "error"));
    r.result = ResultTable::fromJson(field(j, "result"));
    for (const auto& s : elements(field(j, "samples")))
        r.samples.push_back({number(field(s, "t")), text(field(s, "series")), number(field(s, "value"))});
    return r;
}

bool BenchHistory::remove(int64_t id)
{
    Transaction write(*db_, Transaction::Immediate);
    db_->prepare("DELETE FROM bench_samples WHERE run_id = ?").bind(1, id).run();
    db_->prepare("DELETE FROM bench_runs WHERE id = ?").bind(1, id).run();
    const bool removed = db_->changes() > 0;
    write.commit();
    return removed;
}

} // namespace cs
