// cachescope-cli bench: run benchmark scenarios headless, list the history,
// compare two runs (see docs/cli.md, section "bench").
//
//   bench list [--json]
//   bench SCENARIO [--param k=v ...] [--json] [--csv FILE] [--plot FILE.png|.pdf|.svg]
//                  [--plot-timeline FILE.png|.pdf|.svg] [--store DIR] [--no-save]
//   bench history [--json] [--scenario NAME] [--store DIR]
//   bench compare A B [--json] [--store DIR]
//
// Each scenario of core/bench is its own command under `bench`, so its usage
// line, help and completion come from the tree like every other command.
#include "CommandTree.h"
#include "GuiChart.h"
#include "HumanTime.h"
#include "SignalCancel.h"
#include "TerminalProgress.h"
#include "TextTable.h"

#include "core/bench/Bench.h"
#include "core/bench/SamplesCsv.h"
#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/OutputFile.h"
#include "core/util/Units.h"

#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

namespace cli {

namespace {

cs::BenchHistory openHistory(const std::string& store)
{
    return store.empty() ? cs::BenchHistory::openDefault() : cs::BenchHistory::openStore(store);
}

void addStoreOption(CLI::App* c, std::string& store)
{
    c->add_option("--store", store, "Keep the history in this store's catalog instead of the user's history database")
        ->type_name("DIR");
}

// printf's %.<precision>g without the C locale.
std::string general(double v, int precision)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
    return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("-");
}

// --- list ---------------------------------------------------------------

int listScenarios(bool json)
{
    Json all = Json::array();
    std::string text;
    for (const auto& name : cs::scenarioNames()) {
        auto s = cs::makeScenario(name);
        Json o = Json::object();
        o["name"] = name;
        o["description"] = s->description();
        Json params = Json::array();
        text += name + "  " + s->description() + "\n";
        for (const auto& spec : s->params()) {
            Json ps = Json::object();
            ps["name"] = spec.name;
            ps["kind"] = cs::paramKindName(spec.kind);
            ps["default"] = spec.defaultValue;
            ps["description"] = spec.description;
            params.push_back(std::move(ps));
            text += "    " + spec.name + " (" + cs::paramKindName(spec.kind) + ", default '" + spec.defaultValue +
                    "'): " + spec.description + "\n";
        }
        o["params"] = std::move(params);
        all.push_back(std::move(o));
    }
    if (json)
        printJson(all);
    else
        printOut(text);
    return Ok;
}

// --- history ------------------------------------------------------------

int history(const std::string& store, const std::string& scenario, bool json)
{
    const cs::BenchHistory h = openHistory(store);
    const auto runs = h.list(scenario);
    if (json) {
        Json all = Json::array();
        for (const auto& r : runs)
            all.push_back(cs::runToJson(r, false));
        printJson(all);
        return Ok;
    }
    TextTable t({"id", "started", "scenario", "status", "wall", "version"}, {true, false, false, false, true, false});
    for (const auto& r : runs)
        t.add({std::to_string(r.id), localTimeText(r.started), r.scenario, r.status,
               cs::formatDuration(r.finished - r.started), r.version});
    printOut(t.text() + "(" + std::to_string(runs.size()) + " runs in " + h.path() + ")\n");
    return Ok;
}

// --- compare ------------------------------------------------------------

int compare(const std::string& store, int64_t a, int64_t b, bool json)
{
    const cs::BenchHistory h = openHistory(store);
    const auto ra = h.load(a), rb = h.load(b);
    if (!ra || !rb) {
        printError(h.path() + ": no run with id " + std::to_string(!ra ? a : b));
        return Failure;
    }
    if (json) {
        printJson(cs::comparisonToJson(*ra, *rb));
        return Ok;
    }
    auto value = [](const std::optional<double>& v) { return v ? general(*v, 6) : std::string("-"); };
    std::string text = "A = run " + std::to_string(a) + " (" + ra->scenario + ", " + localTimeText(ra->started) +
                       ")\nB = run " + std::to_string(b) + " (" + rb->scenario + ", " + localTimeText(rb->started) +
                       ")\n\n";
    TextTable t({"name", "A", "B", "B % of A", "unit"}, {false, true, true, true, false});
    for (const auto& r : cs::compareRuns(*ra, *rb))
        t.add({r.name, value(r.a), value(r.b), r.percent ? fixed(*r.percent, 1) + "%" : "-", r.unit});
    printOut(text + t.text());
    return Ok;
}

// --- a run --------------------------------------------------------------

// Through OutputFile like every output a user names: a regular file replaced
// atomically, a FIFO or device written in place, and a FIFO with no reader
// waited for while Ctrl-C can still stop the command.
void writeSamplesCsv(const std::vector<cs::Sample>& samples, const std::string& path, cs::Job& job,
                     const cs::Folder* store = nullptr)
{
    std::ostringstream text;
    cs::writeSamplesCsv(text, samples);   // the dialect the GUI reads and writes too
    const std::string csv = text.str();
    cs::OutputFile out = cs::OutputFile::open(path, [&job] { job.checkCancel(); }, store);
    out.writeAll(csv.data(), csv.size());
    out.commit();
}

// Charts are drawn by the GUI binary next to this one (GuiChart.h), so this
// tool links no Qt at all: the summary chart from the run (--render-run),
// the timeline from its samples (--render-samples).
void renderChart(const cs::BenchRun& run, bool timeline, const std::string& plotPath, cs::Job& job)
{
    TempFolder temp;
    if (timeline) {
        const std::string csv = temp.file("samples.csv");
        writeSamplesCsv(run.samples, csv, job);
        drawWithGui("--render-samples", csv, plotPath);
        return;
    }
    const std::string data = temp.file("run.json");
    const std::string json = cs::dumpJson(cs::runToJson(run, false));
    cs::OutputFile out = cs::OutputFile::open(data, [&job] { job.checkCancel(); });
    out.writeAll(json.data(), json.size());
    out.commit();
    drawWithGui("--render-run", data, plotPath);
}

struct RunArgs {
    std::string scenario;
    std::vector<std::string> params;
    bool json = false, noSave = false, quiet = false;
    std::string csv, plot, plotTimeline, store;
};

int runBench(const RunArgs& a)
{
    cs::RunOptions options;
    try {
        for (const auto& kv : a.params) {
            auto [k, v] = cs::Params::splitAssignment(kv);
            options.params[k] = v;
        }
    } catch (const cs::Error& e) {
        throw UsageError(e.what());
    }
    // Open the history first so a bad --store fails before a long run.
    // With --store, no chart or CSV goes into that store's folder (it
    // could replace catalog.db): refused before anything is opened or run.
    std::optional<cs::Folder> store;
    if (!a.store.empty() && (!a.csv.empty() || !a.plot.empty())) {
        store.emplace(cs::Folder::open(a.store));
        for (const std::string* out : {&a.csv, &a.plot})
            if (!out->empty())
                cs::refuseOutputInside(*out, *store);
    }
    std::optional<cs::BenchHistory> hist;
    if (!a.noSave)
        hist.emplace(openHistory(a.store));

    cs::Job job("bench " + a.scenario);
    SignalCancel sc(job);
    std::optional<TerminalProgress> progress;
    std::mutex m;
    int lastStep = -2;
    if (stderrIsTerminal()) {
        progress.emplace(job, 0, a.quiet);
    } else if (!a.quiet) {
        // Not a terminal: one line per step, as a log.
        job.setListener([&](const cs::JobStatus& st) {
            std::lock_guard lock(m);
            if (st.step != lastStep && st.step >= 0 && st.step < int(st.steps.size())) {
                lastStep = st.step;
                std::fprintf(stderr, "[%s] %s\n", a.scenario.c_str(), st.steps[size_t(st.step)].c_str());
            }
        });
    }
    cs::BenchRun run;
    try {
        run = cs::runScenario(a.scenario, options, job);
    } catch (const cs::Error& e) { // bad parameters: nothing ran
        throw UsageError(e.what());
    }
    progress.reset();
    job.setListener({});
    if (hist)
        hist->save(run);
    if (!a.csv.empty())
        writeSamplesCsv(run.samples, a.csv, job, store ? &*store : nullptr);
    if (!a.plot.empty())
        renderChart(run, false, a.plot, job);
    if (!a.plotTimeline.empty())
        renderChart(run, true, a.plotTimeline, job);
    if (a.json) {
        printJson(cs::runToJson(run, false));
    } else {
        std::string text = a.scenario + ": " + run.status;
        if (hist)
            text += " (run " + std::to_string(run.id) + " in " + hist->path() + ")";
        printOut(text + "\n" + run.result.toText());
    }
    if (run.status != "done") {
        printError(a.scenario + ": " + (run.error.empty() ? run.status : run.error));
        return Failure;
    }
    return Ok;
}

TreeRegistration regBench("", "bench", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("bench", "Run benchmark scenarios, list their history, compare runs");
    c->footer("Every run is kept in the history (the user's database, or a store's catalog with --store) with its "
              "parameters, samples, result, version and machine.");
    c->require_subcommand(1);

    auto* list = c->add_subcommand("list", "List the benchmark scenarios and their parameters");
    auto listJson = std::make_shared<bool>(false);
    list->add_flag("--json", *listJson, "Machine-readable output");
    onRun(list, [listJson] { return listScenarios(*listJson); });

    auto* hist = c->add_subcommand("history", "List earlier benchmark runs, newest first");
    struct HistoryArgs {
        bool json = false;
        std::string scenario, store;
    };
    auto h = std::make_shared<HistoryArgs>();
    hist->add_flag("--json", h->json, "Machine-readable output");
    hist->add_option("--scenario", h->scenario, "Only runs of this scenario")->type_name("NAME");
    addStoreOption(hist, h->store);
    onRun(hist, [h] { return history(h->store, h->scenario, h->json); });

    auto* cmp = c->add_subcommand("compare", "Compare two runs: both results and B as a percentage of A");
    struct CompareArgs {
        int64_t a = 0, b = 0;
        bool json = false;
        std::string store;
    };
    auto ca = std::make_shared<CompareArgs>();
    cmp->add_option("A", ca->a, "Run id of the baseline (see 'bench history')")->required()->type_name("")->transform(decimal());
    cmp->add_option("B", ca->b, "Run id to compare with it")->required()->type_name("")->transform(decimal());
    cmp->add_flag("--json", ca->json, "Machine-readable output");
    addStoreOption(cmp, ca->store);
    onRun(cmp, [ca] { return compare(ca->store, ca->a, ca->b, ca->json); });

    for (const auto& name : cs::scenarioNames()) {
        auto scenario = cs::makeScenario(name);
        auto* run = c->add_subcommand(name, "Run the " + name + " scenario: " + scenario->description());
        std::string params = "Parameters (--param name=value):";
        for (const auto& spec : scenario->params())
            params += "\n  " + spec.name + " (" + cs::paramKindName(spec.kind) + ", default '" + spec.defaultValue +
                      "'): " + spec.description;
        run->footer(params + "\nProgress goes to stderr (a bar on a terminal, one line per step otherwise); the "
                             "result table or JSON to stdout. Exit 1 when the run failed or was cancelled.");
        auto a = std::make_shared<RunArgs>();
        a->scenario = name;
        addRepeatable(run, "param", a->params, "k=v", "A scenario parameter (repeatable)");
        run->add_flag("--json", a->json, "Print the run as JSON");
        run->add_option("--csv", a->csv, "Write the samples (t,series,value) to FILE")->type_name("FILE");
        run->add_option("--plot", a->plot,
                        "Draw the summary chart (ours beside the reference tool per phase, with the ratios) to FILE.png, .pdf or .svg")
            ->type_name("FILE.png|.pdf|.svg");
        run->add_option("--plot-timeline", a->plotTimeline,
                        "Draw the samples over time, with the phases, to FILE.png, .pdf or .svg")
            ->type_name("FILE.png|.pdf|.svg");
        run->add_flag("--no-save", a->noSave, "Do not keep the run in the history");
        addStoreOption(run, a->store);
        addQuiet(run, a->quiet);
        onRun(run, [a] { return runBench(*a); });
    }
    return c;
});

} // namespace

} // namespace cli
