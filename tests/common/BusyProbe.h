// The GUI thread's busy spells in its own CPU time (tst_bench_view,
// bench_actions_sort), beside the StallMonitor's heartbeat lateness.
#pragma once
#include <QAbstractEventDispatcher>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <time.h>

namespace testsupport {

// The GUI thread's CPU time between two 10 ms heartbeats: how long it was
// busy without coming back to the event loop. Unlike the StallMonitor's
// lateness, it does not count time the thread waited for a CPU on a loaded
// machine.
// It also measures each turn of the event loop, from one wait of the
// dispatcher to the next, in the thread's CPU time: input that arrives meanwhile
// waits for the whole turn, so the longest turn is the stall a user feels,
// the figure the heartbeat approximates on an idle machine.
class BusyProbe : public QObject {
public:
    BusyProbe()
    {
        connect(&timer_, &QTimer::timeout, this, [this] {
            const double cpu = threadCpuMs();
            longest_ = std::max(longest_, cpu - last_);
            last_ = cpu;
        });
        timer_.start(10);
        last_ = threadCpuMs();
        // Blocking costs no CPU: between two waits, the thread's CPU time
        // is the work of one turn (posted events, timers, input).
        connect(QAbstractEventDispatcher::instance(), &QAbstractEventDispatcher::aboutToBlock, this, [this] {
            const double cpu = threadCpuMs();
            longestTurn_ = std::max(longestTurn_, cpu - lastWait_);
            lastWait_ = cpu;
            longestTurnWall_ = std::max(longestTurnWall_, wallMs() - lastAwake_);
        });
        // The same turn in wall time, from the wake-up to the next wait: more
        // than its CPU time when the thread blocked inside it (a lock, a
        // synchronous read) or waited for a CPU.
        connect(QAbstractEventDispatcher::instance(), &QAbstractEventDispatcher::awake, this,
                [this] { lastAwake_ = wallMs(); });
        lastAwake_ = wallMs();
    }
    void reset()
    {
        longest_ = longestTurn_ = longestTurnWall_ = 0;
        last_ = lastWait_ = threadCpuMs();
        lastAwake_ = wallMs();
    }
    double longestMs() const { return longest_; }
    double longestTurnMs() const { return longestTurn_; }
    double longestTurnWallMs() const { return longestTurnWall_; }

private:
    static double wallMs()
    {
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    }
    static double threadCpuMs()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    }
    QTimer timer_;
    double last_ = 0;
    double longest_ = 0;
    double lastWait_ = 0;
    double longestTurn_ = 0;
    double lastAwake_ = 0;
    double longestTurnWall_ = 0;
};

} // namespace testsupport
