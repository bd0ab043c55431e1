#include "app/cli/Handover.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <utility>

namespace cli {

namespace {

volatile sig_atomic_t g_child = 0;

// A signal sent to the parent alone (kill, a CI timeout) goes on to the
// child. One the terminal sends (Ctrl-C: si_code SI_KERNEL) reached the
// whole process group, the child too; sent again, late, it could land after
// the child's cancel handler is gone and kill it before it says what it left.
extern "C" void relayToChild(int sig, siginfo_t* info, void*)
{
    if (g_child > 0 && (!info || info->si_code != SI_KERNEL))
        ::kill(pid_t(g_child), sig);
}

[[noreturn]] void waitAsParent(pid_t child, int readFd)
{
    g_child = child;
    struct sigaction sa {};
    sa.sa_sigaction = relayToChild;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(sig, &sa, nullptr);
    char c = 0;
    ssize_t n;
    do {
        n = ::read(readFd, &c, 1);
    } while (n < 0 && errno == EINTR);
    if (n == 1)
        ::_exit(static_cast<unsigned char>(c));   // released: the command's output is complete
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status))
        ::_exit(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        ::_exit(128 + WTERMSIG(status));
    ::_exit(1);
}

} // namespace

Handover Handover::begin()
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return Handover(-1);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return Handover(-1);
    }
    if (pid > 0) {
        ::close(fds[1]);
        waitAsParent(pid, fds[0]);
    }
    ::close(fds[0]);
    return Handover(fds[1]);
}

void Handover::release(int exitStatus)
{
    if (fd_ < 0)
        return;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        for (int fd : {0, 1, 2})
            ::dup2(null, fd);
        ::close(null);
    }
    ::setsid();   // out of the terminal's process group: a later Ctrl-C is not ours
    const char c = static_cast<char>(exitStatus & 0xff);
    while (::write(fd_, &c, 1) < 0 && errno == EINTR) {
    }
    ::close(std::exchange(fd_, -1));
    released_ = true;
}

Handover::Handover(Handover&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), detached_(o.detached_), released_(o.released_)
{
}

Handover::~Handover()
{
    if (fd_ >= 0)
        ::close(fd_);   // ended without release: the parent reports our status
}

} // namespace cli
