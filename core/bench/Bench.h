// Benchmarks: named, parameterised scenarios that emit samples (time, series,
// value) about ten times a second while they run and a result table at the
// end; runs are kept in a history database so two can be compared later.
//
//  - Scenario: name, parameter specs with defaults, run(params, sink, job).
//  - SampleSink: collects samples from any thread. While a scenario runs, a
//    sampler thread adds every 100 ms the standard series "RSS MB" (from
//    /proc/self/statm), "CPU cores" (getrusage deltas; 1 = one core), "done MB"
//    and "throughput MB/s" (from the bytes the scenario reports through
//    addBytes()). Scenarios add their own series with add().
//    A series name ends with its unit after the last space ("RSS MB").
//  - Phases: a scenario names the stretches of its run (SampleSink::beginPhase):
//    label, role (ours, the reference tool's, or setup), start and end. They
//    follow each other from t = 0 to the end of sampling with no gap and no
//    overlap, so every sample belongs to exactly one (phaseAt()); the
//    sampler's counters ("done MB") restart at each phase's start. Each
//    phase has its CPU figures: user and sys seconds of the process doing
//    the work (this one, or the reference tool's child), and what else the
//    machine did meanwhile (/proc/stat: cores busy in other processes, cores
//    idle waiting for I/O), so a phase short of cores says why.
//  - ResultTable: rows of name/value/unit (or text), plus optional sub-tables
//    (per-step figures: rows x columns of numbers), the run's phases, and
//    its comparisons: each figure of ours beside the same figure of the
//    reference tool measured in the same run, with the ratio ours/reference
//    and which direction is better.
//  - BenchHistory: SQLite tables (created by the store's migration 1 in a
//    store's catalog.db, or by BenchHistory itself in the user's history
//    database $XDG_DATA_HOME/cachescope/bench-history.db):
//      bench_runs(id INTEGER PRIMARY KEY, scenario TEXT, params_json TEXT,
//                 started REAL, finished REAL, version TEXT, machine TEXT,
//                 status TEXT, result_json TEXT)
//      bench_samples(run_id INTEGER, t REAL, series TEXT, value REAL)
//    started/finished are Unix seconds; status is done|failed|cancelled|running;
//    machine is a JSON object (cpu, cores, memory_bytes, kernel, hostname);
//    result_json is ResultTable::toJson() (plus "error" for a failed run);
//    t in bench_samples is seconds since the run started.
#pragma once
#include "core/util/Json.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cs::sqlite { class Database; }

namespace cs {
class Job;

// ---------- parameters ----------

enum class ParamKind { Int, Size, Double, Bool, String, Path };
const char* paramKindName(ParamKind k);

struct ParamSpec {
    std::string name;          // "populated"
    ParamKind kind = ParamKind::String;
    std::string defaultValue;  // as typed: "512MiB", "4", "true", "" (none)
    std::string description;   // one line
};

// Values as typed (strings), checked against the specs when read.
class Params {
public:
    Params() = default;
    Params(std::vector<ParamSpec> specs, std::map<std::string, std::string> values);

    // Parses "k=v"; throws cs::Error on a missing '='.
    static std::pair<std::string, std::string> splitAssignment(const std::string& text);
    // Throws cs::Error for an unknown name or a value that does not parse.
    void validate() const;

    std::string raw(const std::string& name) const;   // value or default
    int64_t integer(const std::string& name) const;
    uint64_t size(const std::string& name) const;      // "8MiB"
    double number(const std::string& name) const;
    bool flag(const std::string& name) const;          // true/false/1/0/yes/no
    std::string text(const std::string& name) const;

    const std::vector<ParamSpec>& specs() const { return specs_; }
    const std::map<std::string, std::string>& values() const { return values_; }
    // Every parameter with its effective value (defaults filled in).
    std::map<std::string, std::string> effective() const;

private:
    const ParamSpec& spec(const std::string& name) const;
    std::vector<ParamSpec> specs_;
    std::map<std::string, std::string> values_;
};

// ---------- samples ----------

struct Sample {
    double t = 0;            // seconds since the run started
    std::string series;      // "throughput MB/s"
    double value = 0;
};

// The unit of a series: the text after its last space ("MB/s" of "throughput MB/s").
std::string seriesUnit(const std::string& series);

// ---------- phases ----------

enum class PhaseRole { Setup, Ours, Reference };
const char* phaseRoleName(PhaseRole role);          // "setup", "ours", "reference"
PhaseRole phaseRoleFromName(const std::string& name); // unknown names are Setup

struct Phase {
    std::string label;          // "write 2 workers", "zstd -3 -T2"
    PhaseRole role = PhaseRole::Setup;
    std::string tool;           // "cachescope", or the reference program ("zstd")
    double start = 0;           // seconds since the run started
    double end = 0;             // == start while the phase is still running
    double userSeconds = 0;     // CPU of the process doing the work
    double sysSeconds = 0;
    double otherCores = 0;      // mean cores busy in other processes of the machine
    double ioWaitCores = 0;     // mean cores idle waiting for I/O (machine-wide)
    double wall() const { return end - start; }
    // CPU time over wall time: 2.0 = two cores busy for the whole phase.
    double cores() const { return wall() > 0 ? (userSeconds + sysSeconds) / wall() : 0; }
    Json toJsonValue() const;
    static Phase fromJson(const Json& json);
};

// Index of the phase holding t (start <= t < end; the last phase also holds
// its end), the first before its start, the last after its end; -1 when empty.
int phaseAt(const std::vector<Phase>& phases, double t);

class SampleSink {
public:
    // Called for every sample on the thread that added it (keep it cheap).
    using Consumer = std::function<void(const Sample&)>;
    // Called when a phase begins (end == start) and when it ends, on the
    // thread that began it, before any sample of the new phase is given to
    // the sample consumer.
    using PhaseConsumer = std::function<void(const Phase&)>;

    explicit SampleSink(Consumer consumer = {}, PhaseConsumer phaseConsumer = {});
    ~SampleSink();
    SampleSink(const SampleSink&) = delete;
    SampleSink& operator=(const SampleSink&) = delete;

    double now() const;                                   // seconds since construction
    void add(const std::string& series, double value);    // at now()
    void add(double t, const std::string& series, double value);

    // Bytes the scenario has processed; the sampler turns them into
    // "done MB" and "throughput MB/s". beginPhase() sets them to 0.
    void addBytes(uint64_t n) { bytes_.fetch_add(n, std::memory_order_relaxed); }
    uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

    // Ends the running phase (if any) and starts the next one now; the first
    // phase starts at t = 0, so set-up before it counts in it. Resets the
    // byte counter and the peak RSS. tool defaults to "cachescope" for Ours.
    void beginPhase(const std::string& label, PhaseRole role, const std::string& tool = {});
    // The reference tool's own CPU (from wait4) replaces this process's for
    // the running phase, whose work was done by the child.
    void setPhaseCpu(double userSeconds, double sysSeconds);
    // Ends the running phase now; the next beginPhase() starts where it
    // ended. stopSampling() ends the last phase at the last sample.
    void endPhase();
    std::vector<Phase> phases() const;

    // The sampler thread (100 ms period); stopSampling() takes a last sample.
    void startSampling(double periodSeconds = 0.1);
    void stopSampling();
    // Largest RSS seen by the sampler since the last resetPeakRss(), in bytes.
    uint64_t peakRss() const { return peakRss_.load(std::memory_order_relaxed); }
    void resetPeakRss();

    std::vector<Sample> samples() const;                  // everything added so far
    size_t sampleCount() const;

private:
    void sampleOnce();
    void closePhaseLocked(double t);
    void endLastPhase();
    Consumer consumer_;
    PhaseConsumer phaseConsumer_;
    std::chrono::steady_clock::time_point start_;
    mutable std::mutex mutex_;
    std::vector<Sample> samples_;
    std::atomic<uint64_t> bytes_{0};
    std::atomic<uint64_t> peakRss_{0};
    std::atomic<bool> stop_{false};
    std::thread thread_;
    std::mutex waitMutex_;
    std::condition_variable wake_;
    // sampler state
    double lastT_ = 0;
    double lastCpu_ = 0;
    uint64_t lastBytes_ = 0;
    // phases: guarded by phaseMutex_, which sampleOnce() also holds, so a
    // sample's time and byte count belong to one phase
    mutable std::mutex phaseMutex_;
    std::vector<Phase> phases_;
    bool phaseOpen_ = false;
    bool phaseCpuGiven_ = false;
    double phaseCpuUser0_ = 0, phaseCpuSys0_ = 0;
    struct MachineTicks { uint64_t busy = 0, ioWait = 0, total = 0; };
    MachineTicks phaseTicks0_;
    static MachineTicks machineTicks();
};

// ---------- process figures ----------

uint64_t currentRssBytes();                 // /proc/self/statm resident pages
uint64_t rssBytesOf(int pid);               // /proc/<pid>/statm; 0 when gone
double processCpuSeconds();                 // user + system, getrusage(RUSAGE_SELF)
void processCpuSeconds(double& user, double& sys);
uint64_t peakRssBytes();                    // getrusage ru_maxrss

// ---------- results ----------

struct ResultRow {
    std::string name;       // "write 2 workers"
    double value = 0;
    std::string unit;       // "MB/s", "s", "MB", "%", "" for a count
    std::string text;       // non-numeric result (value ignored when set)
};

struct ResultSubTable {
    std::string title;                          // "steps"
    std::vector<std::string> columns;           // "wall s", "user s", ...
    std::vector<std::string> rowNames;          // one per row
    std::vector<std::vector<double>> values;    // rows x columns
};

// Ours beside the reference tool for one figure of the same run. ratio is
// ours / reference (0 when the reference is 0); better says which way is
// good: "higher" for speeds and compression ratios, "lower" for times and
// memory (betterDirection()). JSON: exactly {"name", "ours", "reference",
// "reference_tool", "unit", "ratio", "better"}.
struct Comparison {
    std::string name;           // "write 2 workers MB/s": the row holding ours
    double ours = 0;
    double reference = 0;
    std::string referenceTool;  // "zstd -3 -T2"
    std::string unit;
    double ratio = 0;
    std::string better;         // "higher" | "lower"
    std::string referenceRow;   // the row holding the reference figure (not in JSON)
    std::string phase;          // our phase it measures (not in JSON)
    Json toJsonValue() const;
    static Comparison fromJson(const Json& json);
};
// "higher" for MB/s, x (ratios) and counts per second; "lower" otherwise (s, ms, MB, ...).
std::string betterDirection(const std::string& unit);

struct ResultTable {
    std::vector<ResultRow> rows;
    std::vector<ResultSubTable> tables;
    std::vector<Phase> phases;                  // filled by runScenario from the sink
    std::vector<Comparison> comparisons;

    void add(std::string name, double value, std::string unit = {});
    void addText(std::string name, std::string text);
    // A comparison of two rows already added (ours, then the reference's):
    // figures and unit are read from them, so they always agree. Throws
    // cs::Error when a row is missing. A figure of 0 was not measured (a
    // child that ended before its memory could be read): no comparison,
    // a text row "not compared: <row>" says why.
    void compare(const std::string& oursRow, const std::string& referenceRow, const std::string& referenceTool,
                 const std::string& phase = {});
    const ResultRow* find(const std::string& name) const;
    double value(const std::string& name, double fallback = -1) const;

    // {"rows":[...],"tables":[...],"phases":[...],"comparisons":[...]}
    Json toJsonValue() const;
    std::string toJson() const;                 // compact
    static ResultTable fromJson(const Json& json);
    // Aligned text table for a terminal.
    std::string toText() const;
};

// ---------- scenarios ----------

class Scenario {
public:
    virtual ~Scenario() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<ParamSpec> params() const = 0;
    // Runs with validated params; feeds sink; reports steps and checks cancel
    // through job (throws cs::Cancelled, leaving no files behind).
    virtual ResultTable run(const Params& params, SampleSink& sink, Job& job) = 0;
};

// Every scenario of the core, by name: snapshot, restore, gc, boot (an
// explicit list in ScenarioRegistry.cpp: static registration objects would be
// dropped by the linker from a static library).
std::vector<std::string> scenarioNames();
std::unique_ptr<Scenario> makeScenario(const std::string& name); // nullptr when unknown

// ---------- machine ----------

struct MachineInfo {
    std::string cpu;            // model name from /proc/cpuinfo
    int cores = 0;
    uint64_t memoryBytes = 0;   // MemTotal
    std::string kernel;         // uname -sr
    std::string hostname;
    Json toJsonValue() const;
    std::string toJson() const;
    static MachineInfo fromJson(const Json& json);
    std::string describe() const; // "AMD EPYC 7B13, 2 cores, 7.8 GiB, Linux 6.1.0"
};
MachineInfo currentMachine();

// ---------- history ----------

struct BenchRun {
    int64_t id = 0;
    std::string scenario;
    std::map<std::string, std::string> params; // name -> value as typed (defaults filled in)
    double started = 0;         // Unix seconds
    double finished = 0;
    std::string version;
    MachineInfo machine;
    std::string status;         // done|failed|cancelled|running
    std::string error;          // for failed runs
    ResultTable result;
    std::vector<Sample> samples; // filled by BenchHistory::load()
};

// The whole run as one JSON object: id, scenario, params, started, finished,
// version, machine, status, error, result (ResultTable::toJson), and with
// withSamples "samples": [{"t","series","value"}...]. runFromJson reads it
// back (cachescope --render-run draws `bench --plot` from it).
Json runToJson(const BenchRun& run, bool withSamples);
BenchRun runFromJson(const Json& json);

class BenchHistory {
public:
    // $XDG_DATA_HOME/cachescope/bench-history.db (default ~/.local/share/...).
    static std::string defaultPath();
    // The user's history database; creates the folder and the two tables.
    static BenchHistory openDefault();
    // A database file at path, creating the two tables when missing.
    static BenchHistory openFile(const std::string& path);
    // A store's catalog.db; the tables come from the store's migrations, so
    // this throws cs::Error naming the folder when they are missing.
    static BenchHistory openStore(const std::string& storeDir);

    BenchHistory(BenchHistory&& other) noexcept;
    BenchHistory& operator=(BenchHistory&& other) noexcept;
    ~BenchHistory();

    const std::string& path() const { return path_; }

    // Inserts a run (id assigned and returned) with its samples, in one transaction.
    int64_t save(BenchRun& run);
    // Runs newest first, without samples.
    std::vector<BenchRun> list(const std::string& scenario = {}) const;
    // One run with its samples; std::nullopt when no such id.
    std::optional<BenchRun> load(int64_t id) const;
    bool remove(int64_t id);

private:
    BenchHistory();
    std::unique_ptr<sqlite::Database> db_;
    std::string path_;
};

// ---------- running and comparing ----------

struct RunOptions {
    std::map<std::string, std::string> params;   // as typed; unknown names are an error
    SampleSink::Consumer onSample;               // live samples (worker threads)
    SampleSink::PhaseConsumer onPhase;           // live phases (worker threads)
};

// Runs a scenario under job with a sampler thread and returns the finished
// run (status done, failed or cancelled; never throws for a scenario error,
// except for bad parameters or an unknown scenario, which throw cs::Error
// before anything runs). The caller saves it in a BenchHistory.
BenchRun runScenario(const std::string& scenario, const RunOptions& options, Job& job);

struct ComparisonRow {
    std::string name;           // result row, or "table/row/column" of a sub-table
    std::string unit;
    std::optional<double> a, b;
    std::optional<double> percent;  // b as % of a (100 = equal); unset when a is 0 or missing
};

// Matches results by name (rows, then sub-table cells), in A's order and then
// rows only B has.
std::vector<ComparisonRow> compareRuns(const BenchRun& a, const BenchRun& b);
// {"a": run A, "b": run B, "rows": [{name, unit, a, b, percent}]} (without
// samples): what `bench compare --json` prints and the GUI exports.
Json comparisonToJson(const BenchRun& a, const BenchRun& b);

} // namespace cs
