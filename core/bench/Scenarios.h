// Internal to core/bench: the scenario factories and helpers they share.
#pragma once
#include "core/bench/Bench.h"
#include "core/jobs/Job.h"

#include <string>
#include <vector>

namespace cs {

std::unique_ptr<Scenario> makeSnapshotScenario();
std::unique_ptr<Scenario> makeRestoreScenario();
std::unique_ptr<Scenario> makeGcScenario();
std::unique_ptr<Scenario> makeBootScenario();

// A Job for one core operation inside a scenario step: its progress becomes
// the outer job's step progress and (times total) the sink's byte count, and
// the outer job's cancel reaches it.
class SubJob {
public:
    SubJob(Job& outer, SampleSink& sink, uint64_t totalBytes);
    Job& job() { return inner_; }

private:
    Job inner_;
};

// A temporary folder removed (recursively) when the object goes away.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& parent, const std::string& prefix);
    ~ScratchDir();
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

// Runs a program with argv, stdin/stdout redirected from/to files (empty =
// /dev/null), environment additions; returns exit code (-1 when killed).
// wallSeconds / cpuSeconds / maxRssBytes of the child from wait4. Polls
// job.checkCancel() and kills the child on cancel.
struct ChildResult {
    int exitCode = -1;
    double wallSeconds = 0;
    double cpuSeconds = 0;      // user + sys
    double userSeconds = 0;
    double sysSeconds = 0;
    uint64_t maxRssBytes = 0;
};
ChildResult runChild(const std::vector<std::string>& argv, const std::string& stdinPath,
                     const std::string& stdoutPath, Job& job,
                     const std::vector<std::string>& extraEnv = {}, double timeoutSeconds = 600,
                     const std::function<void(int pid)>& whileRunning = {});

// VmHWM of a running process (its peak RSS since exec); 0 when gone.
uint64_t highWaterRssOf(int pid);
// utime + stime of a running process (/proc/<pid>/stat), seconds; -1 when gone.
double cpuSecondsOf(int pid);

// Samples a reference tool's child while it runs: "<name> RSS MB" and
// "<name> CPU cores" (from /proc/<pid>/stat) at most every 100 ms. Pass
// sample() as runChild's whileRunning.
class ChildSampler {
public:
    ChildSampler(SampleSink& sink, std::string name) : sink_(sink), name_(std::move(name)) {}
    // True when a sample was taken (the caller may read more of the child then).
    bool sample(int pid);

private:
    SampleSink& sink_;
    std::string name_;
    double lastT_ = -1, lastCpu_ = 0;
};

// One sentence when a phase used clearly fewer cores than it had workers
// (below 80 %): what the figures say took the rest of the time. Empty
// otherwise.
std::string whyFewerCores(const Phase& phase, int workers);
// The figures of the running phase, ended now (the sink's phases() copy).
const Phase& lastPhase(const std::vector<Phase>& phases);

// Finds a program on $PATH; empty when not found.
std::string findProgram(const std::string& name);
// Folder of this executable (/proc/self/exe).
std::string selfDirectory();
std::string tempRoot(); // $TMPDIR or /tmp

} // namespace cs
