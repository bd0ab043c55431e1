// The one child-runner of the benchmark programs: spawns a command
// (posix_spawnp, never fork: the child never holds a copy of this process's
// pages, so the ru_maxrss that wait4 returns is the command's own), times it
// from spawn to exit, takes its cpu and peak RSS from wait4, and can poll
// for paths to appear while it runs; plus the median the programs print.
//
// --priority fifo (FifoPriority.h): the child runs under SCHED_FIFO and this
// process above it while it waits, so its timing is not starved.
#pragma once
#include "FifoPriority.h"
#include "core/util/Error.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

namespace bench {

struct ChildOptions {
    std::string stdoutPath = {};        // created or truncated; "" = /dev/null
    bool quietStderr = false;         // stderr to /dev/null too
    std::vector<std::string> env = {};   // NAME=VALUE, added to this process's environment
    bool fifo = false;                // SCHED_FIFO (needs root or CAP_SYS_NICE)
    std::vector<std::string> watch = {}; // polled every millisecond while it runs
    bool mayFail = false;             // a non-zero exit is returned, not thrown
};

struct ChildRun {
    double wall = 0;        // s, spawn to exit
    double cpu = 0;         // s, user + sys of the child
    double rssMiB = 0;      // the child's peak RSS (ru_maxrss)
    double complete = -1;   // s, when the last watched path appeared (wall when it was there only at the end)
    int exitCode = -1;      // -1: killed by a signal
};

inline std::string commandLine(const std::vector<std::string>& argv)
{
    std::string cmd;
    for (const auto& a : argv)
        cmd += (cmd.empty() ? "" : " ") + a;
    return cmd;
}

// Throws cs::Error naming the command when it cannot start, or when it
// exits non-zero (unless mayFail).
inline ChildRun runChild(const std::vector<std::string>& argv, const ChildOptions& options = {})
{
    using Clock = std::chrono::steady_clock;
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e)
        envStrings.emplace_back(*e);
    envStrings.insert(envStrings.end(), options.env.begin(), options.env.end());
    std::vector<char*> envp;
    for (auto& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (options.stdoutPath.empty())
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    else
        posix_spawn_file_actions_addopen(&fa, 1, options.stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (options.quietStderr)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (options.fifo)
        spawnUnderFifo(attr);
    const FifoScope above(options.fifo, kFifoParentPriority);
    if (!above.ok()) {
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        throw cs::Error("--priority fifo: cannot use SCHED_FIFO (needs root or CAP_SYS_NICE)");
    }
    pid_t pid = 0;
    const auto t0 = Clock::now();
    const int spawned = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (spawned != 0)
        throw cs::Error("cannot start " + argv[0]);

    ChildRun r;
    std::vector<char> seen(options.watch.size(), 0);
    size_t seenCount = 0;
    int status = 0;
    struct rusage ru {};
    for (;;) {
        const pid_t w = ::wait4(pid, &status, options.watch.empty() ? 0 : WNOHANG, &ru);
        if (w == pid)
            break;
        for (size_t i = 0; i < options.watch.size(); ++i) {
            struct stat st {};
            if (!seen[i] && ::stat(options.watch[i].c_str(), &st) == 0) {
                seen[i] = 1;
                if (++seenCount == options.watch.size())
                    r.complete = std::chrono::duration<double>(Clock::now() - t0).count();
            }
        }
        ::usleep(1000);
    }
    r.wall = std::chrono::duration<double>(Clock::now() - t0).count();
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r.exitCode != 0 && !options.mayFail)
        throw cs::Error("command failed (status " + std::to_string(status) + "): " + commandLine(argv).substr(0, 300));
    r.cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    r.rssMiB = double(ru.ru_maxrss) / 1024.0;
    if (!options.watch.empty() && r.complete < 0)
        r.complete = r.wall;
    return r;
}

// The median (the mean of the middle two for an even count); 0 for none.
inline double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// "/proc/loadavg"'s first three figures, for the lines the programs print.
inline std::string loadAverage()
{
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a + " " + b + " " + c;
}

} // namespace bench
