#include "core/bench/Scenarios.h"

#include "core/util/Error.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace cs {

SubJob::SubJob(Job& outer, SampleSink& sink, uint64_t totalBytes)
{
    auto last = std::make_shared<uint64_t>(0);
    inner_.setListener([&outer, &sink, totalBytes, last, this](const JobStatus& st) {
        const uint64_t now = uint64_t(st.fraction * double(totalBytes));
        if (now > *last) {
            sink.addBytes(now - *last);
            *last = now;
        }
        outer.setStepProgress(st.fraction);
        if (outer.isCancelled())
            inner_.cancel();
    });
}

ScratchDir::ScratchDir(const std::string& parent, const std::string& prefix)
{
    std::string templ = parent + "/" + prefix + "-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
        failErrno(parent, "cannot create a scratch folder");
    path_ = buf.data();
}

ScratchDir::~ScratchDir()
{
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string tempRoot()
{
    const char* t = std::getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

std::string findProgram(const std::string& name)
{
    if (name.find('/') != std::string::npos)
        return access(name.c_str(), X_OK) == 0 ? name : std::string();
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= p.size()) {
        const size_t end = p.find(':', start);
        const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return {};
}

std::string selfDirectory()
{
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : exe.parent_path().string();
}

uint64_t highWaterRssOf(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoull(line.substr(6)) * 1024;
    return 0;
}

double cpuSecondsOf(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line))
        return -1;
    // The command name is in parentheses and may hold spaces: count after the last ')'.
    const size_t close = line.rfind(')');
    if (close == std::string::npos)
        return -1;
    std::istringstream rest(line.substr(close + 2));
    std::string f;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> f; ++i) {
        if (i == 14)
            utime = std::atof(f.c_str());
        if (i == 15)
            stime = std::atof(f.c_str());
    }
    return (utime + stime) / double(sysconf(_SC_CLK_TCK));
}

bool ChildSampler::sample(int pid)
{
    const double t = sink_.now();
    if (lastT_ >= 0 && t - lastT_ < 0.1)
        return false;
    const double cpu = cpuSecondsOf(pid);
    if (const uint64_t rss = rssBytesOf(pid))
        sink_.add(t, name_ + " RSS MB", double(rss) / 1e6);
    if (cpu >= 0 && lastT_ >= 0 && t > lastT_)
        sink_.add(t, name_ + " CPU cores", std::max(0.0, (cpu - lastCpu_) / (t - lastT_)));
    if (cpu >= 0)
        lastCpu_ = cpu;
    lastT_ = t;
    return true;
}

static std::string fixed2(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string whyFewerCores(const Phase& p, int workers)
{
    const double cores = p.cores();
    if (workers < 2 || p.wall() <= 0 || cores >= 0.8 * workers)
        return {};
    const double machine = double(std::max(1u, std::thread::hardware_concurrency()));
    std::string why = fixed2(cores) + " of " + std::to_string(workers) + " cores over " + fixed2(p.wall()) + " s: ";
    std::vector<std::string> reasons;
    if (cores + p.otherCores > 0.8 * machine)
        reasons.push_back("other processes kept " + fixed2(p.otherCores) + " of the machine's " +
                          std::to_string(int(machine)) + " cores busy");
    if (p.ioWaitCores > 0.1)
        reasons.push_back(fixed2(p.ioWaitCores) + " cores waited for I/O");
    const double cpu = p.userSeconds + p.sysSeconds;
    if (cpu > 0 && p.sysSeconds > 0.3 * cpu)
        reasons.push_back("sys time " + fixed2(p.sysSeconds) + " s of " + fixed2(cpu) + " s CPU (the kernel: page cache, writes)");
    if (reasons.empty())
        reasons.push_back("the workers waited on each other or on the single reader/writer (no other process, I/O wait or sys time explains it)");
    for (size_t i = 0; i < reasons.size(); ++i)
        why += (i ? "; " : "") + reasons[i];
    return why;
}

const Phase& lastPhase(const std::vector<Phase>& phases)
{
    if (phases.empty())
        throw Error("benchmark: no phase has begun");
    return phases.back();
}

ChildResult runChild(const std::vector<std::string>& argv, const std::string& stdinPath,
                     const std::string& stdoutPath, Job& job, const std::vector<std::string>& extraEnv,
                     double timeoutSeconds, const std::function<void(int)>& whileRunning)
{
    if (argv.empty())
        throw Error("runChild: no program");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath.empty() ? "/dev/null" : stdinPath.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath.empty() ? "/dev/null" : stdoutPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // Environment: ours, with extraEnv's NAME=value replacing same-named entries.
    std::vector<std::string> envStore;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const auto& x : extraEnv)
            if (x.substr(0, x.find('=')) == name)
                replaced = true;
        if (!replaced)
            envStore.push_back(entry);
    }
    for (const auto& x : extraEnv)
        envStore.push_back(x);
    std::vector<char*> envp;
    for (auto& e : envStore)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        errno = rc;
        failErrno(argv[0], "cannot start");
    }
    ChildResult result;
    // ru_maxrss of a child spawned with vfork semantics includes our own peak
    // (exec records the old mm's high-water mark), so the child's peak is
    // taken from its VmHWM while it runs.
    uint64_t hwm = 0;
    int status = 0;
    rusage ru{};
    bool killed = false;
    int polls = 0;
    while (true) {
        const pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid)
            break;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!killed && (job.isCancelled() || elapsed > timeoutSeconds)) {
            kill(pid, SIGKILL);
            killed = true;
        }
        hwm = std::max(hwm, highWaterRssOf(pid));
        if (whileRunning && !killed)
            whileRunning(pid);
        // Short programs end within milliseconds: poll often at first, so
        // their peak RSS is read at least once.
        std::this_thread::sleep_for(std::chrono::microseconds(polls++ < 50 ? 1000 : 10000));
    }
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.userSeconds = double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6;
    result.sysSeconds = double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) / 1e6;
    result.cpuSeconds = result.userSeconds + result.sysSeconds;
    result.maxRssBytes = hwm;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    job.checkCancel();
    if (killed)
        throw Error(argv[0] + ": did not finish within " + std::to_string(int(timeoutSeconds)) + " s and was stopped");
    return result;
}

} // namespace cs
