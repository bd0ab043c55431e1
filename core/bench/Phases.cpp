// Phases of a benchmark run (Bench.h): names, JSON, lookup by time, and the
// sink's phase bookkeeping with the machine's CPU ticks (/proc/stat).
#include "core/bench/Bench.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace cs {

const char* phaseRoleName(PhaseRole role)
{
    switch (role) {
    case PhaseRole::Ours: return "ours";
    case PhaseRole::Reference: return "reference";
    case PhaseRole::Setup: break;
    }
    return "setup";
}

PhaseRole phaseRoleFromName(const std::string& name)
{
    if (name == "ours")
        return PhaseRole::Ours;
    if (name == "reference")
        return PhaseRole::Reference;
    return PhaseRole::Setup;
}

Json Phase::toJsonValue() const
{
    Json o = Json::object();
    o["label"] = label;
    o["role"] = phaseRoleName(role);
    o["tool"] = tool;
    o["start"] = start;
    o["end"] = end;
    o["user_s"] = userSeconds;
    o["sys_s"] = sysSeconds;
    o["cores"] = cores();
    o["other_cores"] = otherCores;
    o["iowait_cores"] = ioWaitCores;
    return o;
}

Phase Phase::fromJson(const Json& j)
{
    Phase p;
    p.label = text(field(j, "label"));
    p.role = phaseRoleFromName(text(field(j, "role")));
    p.tool = text(field(j, "tool"));
    p.start = number(field(j, "start"));
    p.end = number(field(j, "end"));
    p.userSeconds = number(field(j, "user_s"));
    p.sysSeconds = number(field(j, "sys_s"));
    p.otherCores = number(field(j, "other_cores"));
    p.ioWaitCores = number(field(j, "iowait_cores"));
    return p;
}

int phaseAt(const std::vector<Phase>& phases, double t)
{
    if (phases.empty())
        return -1;
    // Phases are sorted and contiguous: the last one starting at or before t.
    const auto it = std::upper_bound(phases.begin(), phases.end(), t,
                                     [](double x, const Phase& p) { return x < p.start; });
    return it == phases.begin() ? 0 : int(it - phases.begin()) - 1;
}

// The machine's "cpu" line of /proc/stat, in clock ticks summed over all
// cores: busy (user, nice, system, irq, softirq, steal), iowait and total.
SampleSink::MachineTicks SampleSink::machineTicks()
{
    std::ifstream in("/proc/stat");
    std::string line;
    MachineTicks m;
    if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0)
        return m;
    std::istringstream fields(line.substr(4));
    uint64_t v[8] = {};
    for (auto& x : v)
        fields >> x;
    m.ioWait = v[4];
    m.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    m.total = m.busy + v[3] + v[4];
    return m;
}

void SampleSink::closePhaseLocked(double t)
{
    if (!phaseOpen_)
        return;
    Phase& p = phases_.back();
    p.end = std::max(t, p.start);
    double user = 0, sys = 0;
    processCpuSeconds(user, sys);
    const double selfCpu = (user - phaseCpuUser0_) + (sys - phaseCpuSys0_);
    if (!phaseCpuGiven_) {
        p.userSeconds = user - phaseCpuUser0_;
        p.sysSeconds = sys - phaseCpuSys0_;
    }
    const MachineTicks now = machineTicks();
    const double total = double(now.total - phaseTicks0_.total);
    if (total > 0 && p.wall() > 0) {
        const double cores = double(std::max(1u, std::thread::hardware_concurrency()));
        const double busy = double(now.busy - phaseTicks0_.busy) / total * cores;
        const double work = (selfCpu + (phaseCpuGiven_ ? p.userSeconds + p.sysSeconds : 0)) / p.wall();
        p.otherCores = std::max(0.0, busy - work);
        p.ioWaitCores = double(now.ioWait - phaseTicks0_.ioWait) / total * cores;
    }
    phaseOpen_ = false;
    if (phaseConsumer_)
        phaseConsumer_(p);
}

void SampleSink::beginPhase(const std::string& label, PhaseRole role, const std::string& tool)
{
    std::lock_guard lock(phaseMutex_);
    // No gap: after endPhase() the next phase starts where that one ended.
    const double t0 = now();
    const double t = phases_.empty() ? 0.0 : phaseOpen_ ? t0 : phases_.back().end;
    closePhaseLocked(t0);
    Phase p;
    p.label = label;
    p.role = role;
    p.tool = tool.empty() && role == PhaseRole::Ours ? "cachescope" : tool;
    p.start = t;
    p.end = t;
    phases_.push_back(p);
    phaseOpen_ = true;
    phaseCpuGiven_ = false;
    processCpuSeconds(phaseCpuUser0_, phaseCpuSys0_);
    phaseTicks0_ = machineTicks();
    bytes_.store(0, std::memory_order_relaxed);
    resetPeakRss();
    // The sampler's next deltas start at the phase's start.
    lastT_ = now();
    lastCpu_ = phaseCpuUser0_ + phaseCpuSys0_;
    lastBytes_ = 0;
    if (phaseConsumer_)
        phaseConsumer_(phases_.back());
}

void SampleSink::setPhaseCpu(double userSeconds, double sysSeconds)
{
    std::lock_guard lock(phaseMutex_);
    if (!phaseOpen_)
        return;
    phases_.back().userSeconds = userSeconds;
    phases_.back().sysSeconds = sysSeconds;
    phaseCpuGiven_ = true;
}

void SampleSink::endPhase()
{
    std::lock_guard lock(phaseMutex_);
    closePhaseLocked(now());
    // Samples until the next phase begins are drawn in it: count from 0 there.
    bytes_.store(0, std::memory_order_relaxed);
    lastBytes_ = 0;
}

void SampleSink::endLastPhase()
{
    std::lock_guard lock(phaseMutex_);
    const double t = now();
    if (phaseOpen_) {
        closePhaseLocked(t);
    } else if (!phases_.empty() && t > phases_.back().end) {
        // The scenario ended its last phase: the last samples (bytes 0
        // since) are in a set-up phase of their own, so the phases still
        // cover the run and no counter falls inside one.
        Phase p;
        p.label = "end of run";
        p.start = phases_.back().end;
        p.end = t;
        phases_.push_back(p);
        if (phaseConsumer_)
            phaseConsumer_(phases_.back());
    }
}

std::vector<Phase> SampleSink::phases() const
{
    std::lock_guard lock(phaseMutex_);
    return phases_;
}

} // namespace cs
