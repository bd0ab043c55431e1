// Linked into every test program of a ThreadSanitizer build only
// (tests/CMakeLists.txt): lets a test start children with QProcess under TSan.
//
// Qt 6.4 (forkfd's vforkfd) starts every QProcess child with glibc's
// clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD): the child runs in the parent's
// memory until it calls exec. GCC 12's libtsan intercepts clone and runs its
// after-fork bookkeeping (ForkChildAfter, FdOnFork) in that child, that is on
// the parent's own TSan state: the test process then takes itself for a child
// forked from a multi-threaded process. Its next new thread dies ("starting
// new threads after multi-threaded fork is not supported"), and with
// die_after_fork=0 the thread that started the child ignores synchronisation
// from then on, so memory only ever touched under a mutex is reported as
// raced (docs/reliability.md, Sanitizers).
//
// This definition of clone comes first in the program's symbol lookup, before
// libtsan's, and turns exactly that kind of clone into fork(), which TSan
// models (its own vfork interceptor does the same), with the pidfd the caller
// asked for from pidfd_open. forkfd itself starts children this way when it
// is told not to use vfork (FFD_USE_FORK). Every other clone goes on to
// libtsan's interceptor unchanged.
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdarg>

namespace {

using CloneFn = int (*)(int (*)(void*), void*, int, void*, ...);

bool startsAProcessInOurMemory(int flags)
{
    constexpr int vforkLike = CLONE_VM | CLONE_VFORK;
    constexpr int handled = vforkLike | CLONE_PIDFD | CSIGNAL;
    return (flags & vforkLike) == vforkLike && (flags & ~handled) == 0 && (flags & CSIGNAL) == SIGCHLD;
}

int forkInstead(int (*fn)(void*), int flags, void* arg, int* pidfdOut)
{
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(fn(arg));
    if (pid < 0 || !(flags & CLONE_PIDFD))
        return pid;
    const long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        // The caller cannot wait for a child it has no pidfd of: as if clone failed.
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        return -1;
    }
    *pidfdOut = int(pidfd);
    return pid;
}

} // namespace

extern "C" int clone(int (*fn)(void*), void* stack, int flags, void* arg, ...) noexcept
{
    va_list ap;
    va_start(ap, arg);
    auto* parentTid = va_arg(ap, int*);   // CLONE_PIDFD: where the pidfd goes
    void* tls = va_arg(ap, void*);
    auto* childTid = va_arg(ap, pid_t*);
    va_end(ap);
    if (startsAProcessInOurMemory(flags))
        return forkInstead(fn, flags, arg, parentTid);
    static const auto next = reinterpret_cast<CloneFn>(::dlsym(RTLD_NEXT, "clone"));
    return next(fn, stack, flags, arg, parentTid, tls, childTid);
}
