// cachescope-cli store gc DIR [--dry-run] [--json] [--ranges]
// cachescope-cli store gc-history DIR [--json]
// cachescope-cli store gc-compare DIR RUN_A RUN_B [--json]
// (schema in docs/cli.md, section "store gc").
#include "CommandTree.h"
#include "SignalCancel.h"
#include "StoreCommon.h"
#include "TerminalProgress.h"
#include "TextTable.h"

#include "core/gc/Gc.h"
#include "core/jobs/Job.h"
#include "core/store/StoreLayout.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#include <cmath>

namespace cli {

namespace {

std::string size(uint64_t b) { return cs::formatSize(b); }
std::string num(uint64_t v) { return std::to_string(v); }

// The core builds it (the same document gc_runs.stats_json stores): one
// JSON stack, so byte counts print exactly as the 64-bit integers they are.
Json statsJson(const cs::gc::GcStats& s) { return s.toJsonValue(); }

Json rangesJson(const std::vector<cs::gc::PackRange>& ranges)
{
    Json a = Json::array();
    for (const auto& r : ranges)
        a.push_back({{"offset", r.offset}, {"length", r.length}});
    return a;
}

std::string stepTable(const cs::gc::GcStats& s)
{
    TextTable t({"step", "wall s", "user s", "sys s", "maxrss KiB", "minflt", "majflt", "inblock", "oublock", "nvcsw",
                 "nivcsw"},
                {false, true, true, true, true, true, true, true, true, true, true});
    for (const auto& st : s.steps)
        t.add({st.name, fixed(st.wallSeconds, 3), fixed(st.userSeconds, 3), fixed(st.sysSeconds, 3), num(st.maxrssKiB),
               num(st.minflt), num(st.majflt), num(st.inblock), num(st.oublock), num(st.nvcsw), num(st.nivcsw)});
    return t.text();
}

// The store's catalog; exit 1 (not a usage error) when DIR is not a store.
std::string catalogOf(const std::string& dir)
{
    return cs::store::StoreLayout::open(dir).storeCatalogPath();
}

struct GcArgs {
    std::string dir;
    bool dryRun = false, json = false, ranges = false, quiet = false;
};

int runGc(const GcArgs& a)
{
    catalogOf(a.dir);
    cs::gc::GcOptions o;
    o.dryRun = a.dryRun;
    o.collectRanges = a.ranges;
    cs::Job job("store gc");
    SignalCancel sc(job);
    cs::gc::GcResult r;
    std::string error;
    {
        TerminalProgress progress(job, 0, a.quiet);
        job.run([&](cs::Job& j) {
            try {
                r = cs::gc::collectStoreGarbage(a.dir, o, j);
            } catch (const std::exception& e) {
                error = e.what();
                throw;
            }
        });
    }
    if (!error.empty()) {
        printError(error);
        return Failure;
    }
    const auto& s = r.stats;
    if (a.json) {
        Json out = statsJson(s);
        out["run_id"] = r.runId;
        if (o.collectRanges) {
            out["live_ranges"] = rangesJson(r.liveRanges);
            out["dead_ranges"] = rangesJson(r.deadRanges);
        }
        printJson(out);
        return Ok;
    }
    std::string t;
    t += s.dryRun ? "dry run (nothing written), generation " + num(s.generation) + "\n"
                  : "generation " + num(s.generationBefore) + " -> " + num(s.generation) + " (run " +
                        std::to_string(r.runId) + ")\n";
    t += "roots " + num(s.roots) + ", objects visited " + num(s.objectsVisited) + ", largest frontier " +
         num(s.largestFrontier) + "\n";
    t += "live " + size(s.liveBytes) + " in " + num(s.ranges) + " ranges, reclaimed " + size(s.reclaimedBytes) +
         (s.dryRun ? " (" + num(s.deadObjects) + " dead objects)" : "") + "\n";
    t += "pack " + size(s.packBytesBefore()) + " -> " + size(s.packBytesAfter());
    if (!s.dryRun)
        t += ", " + size(s.appendedDuringGc) + " appended during GC kept, " + num(s.chunkRowsDeleted) +
             " chunk rows deleted";
    t += "\n\n" + stepTable(s);
    printOut(t);
    return Ok;
}

TreeRegistration regGc("store", "gc", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("gc", "Collect the pack objects no merged entry reaches");
    c->footer("Copies the live ranges into a new generation and swaps it in atomically; merges, uploads and restores "
              "may go on meanwhile. --dry-run writes nothing to the pack and takes no GC lock. Exit 1 when DIR is not "
              "a store, another GC is running, or the pack is damaged (the old generation is then left as it was).");
    auto a = std::make_shared<GcArgs>();
    addPath(c, "DIR", a->dir, "The store folder");
    c->add_flag("--dry-run", a->dryRun, "Only report what would be kept and reclaimed");
    c->add_flag("--json", a->json, "Print the run as JSON");
    c->add_flag("--ranges", a->ranges, "With --json, list the live and dead ranges too");
    addQuiet(c, a->quiet);
    onRun(c, [a] { return runGc(*a); });
    return c;
});

int runHistory(const std::string& dir, bool json)
{
    const auto runs = cs::gc::gcHistory(catalogOf(dir));
    if (json) {
        Json list = Json::array();
        for (const auto& r : runs) {
            Json o = Json::object();
            o["id"] = r.id;
            o["started"] = r.started;
            o["finished"] = r.finished;
            o["generation"] = r.generation;
            o["dry_run"] = r.dryRun;
            o["status"] = r.status;
            o["stats"] = statsJson(r.stats);
            list.push_back(std::move(o));
        }
        printJson({{"runs", std::move(list)}});
        return Ok;
    }
    TextTable t({"id", "started", "status", "dry", "gen", "objects", "live", "reclaimed", "pack after", "wall s"},
                {true, false, false, false, true, true, true, true, true, true});
    for (const auto& r : runs) {
        double wall = 0;
        for (const auto& st : r.stats.steps)
            wall += st.wallSeconds;
        t.add({std::to_string(r.id), localTimeText(r.started), r.status, r.dryRun ? "yes" : "no", num(r.generation),
               num(r.stats.objectsVisited), size(r.stats.liveBytes), size(r.stats.reclaimedBytes),
               size(r.stats.packBytesAfter()), fixed(wall, 3)});
    }
    printOut(t.text() + (runs.empty() ? "(no GC runs yet)\n" : ""));
    return Ok;
}

TreeRegistration regHistory("store", "gc-history", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("gc-history", "List the store's GC runs, newest first");
    auto dir = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    addPath(c, "DIR", *dir, "The store folder");
    c->add_flag("--json", *json, "Print the runs as JSON");
    onRun(c, [dir, json] { return runHistory(*dir, *json); });
    return c;
});

struct CompareArgs {
    std::string dir;
    int64_t a = 0, b = 0;
    bool json = false;
};

int runCompare(const CompareArgs& args)
{
    const std::string catalog = catalogOf(args.dir);
    const auto runA = cs::gc::gcRun(catalog, args.a);
    const auto runB = cs::gc::gcRun(catalog, args.b);
    const auto rows = cs::gc::compareGcRuns(runA.stats, runB.stats);
    if (args.json) {
        Json list = Json::array();
        for (const auto& r : rows)
            list.push_back({{"figure", r.figure}, {"a", r.a}, {"b", r.b}, {"percent", r.percent < 0 ? Json() : Json(r.percent)}});
        Json o = Json::object();
        o["run_a"] = args.a;
        o["run_b"] = args.b;
        o["rows"] = std::move(list);
        printJson(o);
        return Ok;
    }
    auto value = [](double v) {
        return v == std::floor(v) && std::fabs(v) < 9e15 ? std::to_string(int64_t(v)) : fixed(v, 3);
    };
    TextTable t({"figure", "run " + std::to_string(args.a), "run " + std::to_string(args.b), "B/A"},
                {false, true, true, true});
    for (const auto& r : rows)
        t.add({r.figure, value(r.a), value(r.b), r.percent < 0 ? "-" : fixed(r.percent, 1) + " %"});
    printOut(t.text());
    return Ok;
}

TreeRegistration regCompare("store", "gc-compare", [](CLI::App& parent) {
    auto* c = parent.add_subcommand("gc-compare", "Two GC runs side by side, B as a percentage of A per figure");
    auto a = std::make_shared<CompareArgs>();
    addPath(c, "DIR", a->dir, "The store folder");
    c->add_option("RUN_A", a->a, "Run id (see gc-history)")->required()->type_name("")->transform(decimal());
    c->add_option("RUN_B", a->b, "Run id")->required()->type_name("")->transform(decimal());
    c->add_flag("--json", a->json, "Print the comparison as JSON");
    onRun(c, [a] { return runCompare(*a); });
    return c;
});

} // namespace

} // namespace cli
