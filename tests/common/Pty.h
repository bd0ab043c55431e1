// Runs cachescope-cli on a pseudo-terminal (TERM=xterm), so that the tests
// see what a user's terminal gets: progress lines redrawn with \r and \033[K.
#pragma once
#include <QByteArray>
#include <QStringList>

#include <poll.h>
#include <pty.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace testsupport {

// Exit code (-1 when killed or not exited) and everything written to the
// terminal (stdout and stderr together).
inline std::pair<int, QByteArray> cliOnPty(const QStringList& args)
{
    std::vector<std::string> storage{CACHESCOPE_CLI};
    for (const auto& a : args)
        storage.push_back(a.toStdString());
    std::vector<char*> argv;
    for (auto& s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        ::setenv("TERM", "xterm", 1);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    QByteArray out;
    char buf[4096];
    while (true) {
        pollfd pfd{master, POLLIN, 0};
        if (::poll(&pfd, 1, 60000) <= 0)
            break;
        const ssize_t n = ::read(master, buf, sizeof buf);
        if (n <= 0)
            break; // EIO once the child closed the terminal
        out.append(buf, n);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

} // namespace testsupport
