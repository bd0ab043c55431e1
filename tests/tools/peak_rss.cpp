// cachescope_peak_rss OUT PROGRAM [ARGS...]: runs PROGRAM with its standard
// output to the file OUT and prints "<exit code> <peak RSS in KiB>" on its
// own standard output (exit code -1: a signal ended it).
//
// Why a program between the test and the child: Linux carries a process's
// high-water mark over fork and exec (the forked copy's mm starts with the
// parent's hiwater_rss, and exec folds the old mm's mark into the process's
// maxrss; a vfork/posix_spawn child execs from the parent's own mm), so a
// test that reached 300 MiB read 300 MiB as the peak of every child it ran.
// This program is small: the child it forks inherits a mark of a few MiB,
// so wait4's ru_maxrss is the child's own peak. tests/common/ChildRss.h.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: cachescope_peak_rss OUT PROGRAM [ARGS...]\n");
        return 2;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || ::dup2(fd, 1) < 0)
            ::_exit(127);
        ::execv(argv[2], argv + 2);
        ::_exit(127);
    }
    if (pid < 0) {
        std::perror("cachescope_peak_rss: fork");
        return 1;
    }
    int status = 0;
    rusage ru {};
    if (::wait4(pid, &status, 0, &ru) != pid) {
        std::perror("cachescope_peak_rss: wait4");
        return 1;
    }
    std::printf("%d %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, ru.ru_maxrss);
    return 0;
}
