// --priority fifo of the benchmark programs: the measured child runs under
// SCHED_FIFO (priority 10) and the parent that times it above it (20), so
// that on the shared 2-core machine the other engineers' builds wait: an
// approximation of the idle machine the targets speak of (RT throttling
// still leaves others 5 %).
#pragma once
#include <sched.h>
#include <spawn.h>

namespace bench {

constexpr int kFifoChildPriority = 10;
constexpr int kFifoParentPriority = 20;

// Makes posix_spawn start the child under SCHED_FIFO.
inline void spawnUnderFifo(posix_spawnattr_t& attr)
{
    sched_param child{};
    child.sched_priority = kFifoChildPriority;
    posix_spawnattr_setschedpolicy(&attr, SCHED_FIFO);
    posix_spawnattr_setschedparam(&attr, &child);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSCHEDULER);
}

// Puts the calling process above its children; false without the right
// (root or CAP_SYS_NICE).
inline bool parentUnderFifo()
{
    sched_param self{};
    self.sched_priority = kFifoParentPriority;
    return ::sched_setscheduler(0, SCHED_FIFO, &self) == 0;
}

// While it lives (when `on`), the calling process runs under SCHED_FIFO at
// `priority`, back to SCHED_OTHER after. At the children's priority, what it
// forks (QProcess, sh -c) inherits it: for programs that cannot set a spawn
// attribute per child. At kFifoParentPriority, it stays above the child it
// spawned (spawnUnderFifo) while it times it. ok() is false without the
// right (root or CAP_SYS_NICE).
class FifoScope {
public:
    explicit FifoScope(bool on, int priority = kFifoChildPriority) : on_(on)
    {
        sched_param p{};
        p.sched_priority = priority;
        ok_ = !on_ || ::sched_setscheduler(0, SCHED_FIFO, &p) == 0;
    }
    ~FifoScope()
    {
        sched_param p{};
        if (on_ && ok_)
            ::sched_setscheduler(0, SCHED_OTHER, &p);
    }
    FifoScope(const FifoScope&) = delete;
    FifoScope& operator=(const FifoScope&) = delete;
    bool ok() const { return ok_; }

private:
    bool on_ = false, ok_ = true;
};

} // namespace bench
