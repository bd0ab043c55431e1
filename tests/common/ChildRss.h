// Runs a program as a child with stdout to a file and reports its peak
// resident set from wait4(): the child's own figure, not a high-water mark
// the test process reached earlier. Used by the memory-bound regression tests.
#pragma once
#include <QString>
#include <QStringList>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace testsupport {

struct ChildRun {
    int exitCode = -1;     // -1 when it did not exit normally (signal)
    long maxRssKiB = 0;    // ru_maxrss of the child
};

inline ChildRun runMeasured(const QString& program, const QStringList& args, const QString& stdoutPath)
{
    std::vector<std::string> words{program.toStdString()};
    for (const auto& a : args)
        words.push_back(a.toStdString());
    std::vector<char*> argv;
    for (auto& w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);
    const std::string out = stdoutPath.toStdString();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ::dup2(fd, 1) < 0)
            ::_exit(127);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ChildRun r;
    if (pid < 0)
        return r;
    int status = 0;
    rusage ru {};
    if (::wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.maxRssKiB = ru.ru_maxrss;
    return r;
}

} // namespace testsupport
