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

} // namespace bench
