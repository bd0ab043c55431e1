#include "core/bench/Bench.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <chrono>

namespace cs {

static double unixNow()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The phases' CPU figures as a sub-table, so the text output, the GUI's
// result table and compareRuns show them like any other figure.
static void addPhaseTable(ResultTable& t)
{
    if (t.phases.empty())
        return;
    ResultSubTable sub;
    sub.title = "phases";
    sub.columns = {"start s", "wall s", "cores", "user s", "sys s", "other processes cores", "I/O wait cores"};
    for (const auto& p : t.phases) {
        sub.rowNames.push_back(p.label + " (" + (p.role == PhaseRole::Setup ? std::string("setup") : p.tool) + ")");
        sub.values.push_back({p.start, p.wall(), p.cores(), p.userSeconds, p.sysSeconds, p.otherCores, p.ioWaitCores});
    }
    t.tables.push_back(std::move(sub));
}

BenchRun runScenario(const std::string& name, const RunOptions& options, Job& job)
{
    auto scenario = makeScenario(name);
    if (!scenario) {
        std::string known;
        for (const auto& n : scenarioNames())
            known += (known.empty() ? "" : ", ") + n;
        throw Error("unknown scenario '" + name + "' (known: " + known + ")");
    }
    Params params(scenario->params(), options.params);
    params.validate();

    BenchRun run;
    run.scenario = name;
    run.params = params.effective();
    run.version = CACHESCOPE_VERSION;
    run.machine = currentMachine();
    run.started = unixNow();

    SampleSink sink(options.onSample, options.onPhase);
    job.start();
    sink.startSampling();
    try {
        run.result = scenario->run(params, sink, job);
        run.status = "done";
    } catch (const Cancelled&) {
        run.status = "cancelled";
    } catch (const std::exception& e) {
        run.status = "failed";
        run.error = e.what();
    }
    sink.stopSampling();
    run.finished = unixNow();
    run.samples = sink.samples();
    run.result.phases = sink.phases();
    addPhaseTable(run.result);
    if (run.status == "done")
        job.finish(name + ": done in " + formatDuration(run.finished - run.started));
    else if (run.status == "cancelled")
        job.markCancelled();
    else
        job.failWith(run.error);
    return run;
}

std::vector<ComparisonRow> compareRuns(const BenchRun& a, const BenchRun& b)
{
    struct Cell {
        std::string name, unit;
        double value;
    };
    auto flatten = [](const ResultTable& t) {
        std::vector<Cell> cells;
        for (const auto& r : t.rows)
            if (r.text.empty())
                cells.push_back({r.name, r.unit, r.value});
        for (const auto& sub : t.tables)
            for (size_t i = 0; i < sub.rowNames.size() && i < sub.values.size(); ++i)
                for (size_t c = 0; c < sub.columns.size() && c < sub.values[i].size(); ++c)
                    cells.push_back({sub.title + "/" + sub.rowNames[i] + "/" + sub.columns[c],
                                     seriesUnit(sub.columns[c]), sub.values[i][c]});
        return cells;
    };
    const auto ca = flatten(a.result);
    const auto cb = flatten(b.result);
    std::vector<ComparisonRow> rows;
    for (const auto& x : ca) {
        ComparisonRow row{x.name, x.unit, x.value, std::nullopt, std::nullopt};
        for (const auto& y : cb)
            if (y.name == x.name) {
                row.b = y.value;
                break;
            }
        if (row.b && x.value != 0)
            row.percent = *row.b / x.value * 100.0;
        rows.push_back(std::move(row));
    }
    for (const auto& y : cb) {
        bool seen = false;
        for (const auto& x : ca)
            seen = seen || x.name == y.name;
        if (!seen)
            rows.push_back({y.name, y.unit, std::nullopt, y.value, std::nullopt});
    }
    return rows;
}

Json comparisonToJson(const BenchRun& a, const BenchRun& b)
{
    Json out = Json::object();
    out["a"] = runToJson(a, false);
    out["b"] = runToJson(b, false);
    Json list = Json::array();
    for (const auto& r : compareRuns(a, b)) {
        Json row = Json::object();
        row["name"] = r.name;
        row["unit"] = r.unit;
        row["a"] = r.a ? Json(*r.a) : Json();
        row["b"] = r.b ? Json(*r.b) : Json();
        row["percent"] = r.percent ? Json(*r.percent) : Json();
        list.push_back(std::move(row));
    }
    out["rows"] = std::move(list);
    return out;
}

} // namespace cs
