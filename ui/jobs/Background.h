// Work the GUI hands to worker threads: on a pool of its own, at a lower
// CPU priority than the GUI.
//
// Its own pool, not QThreadPool::globalInstance(): Qt's raster paint engine
// splits large fills over the global pool and blocks the GUI thread until
// they are done, so a catalog scan or a GC occupying the global pool's
// threads (two on a 2-core machine) froze repaints for as long as the scan
// ran (60-100 ms measured while a 200k-entry store opened).
//
// Lower priority: a nice value is per thread on Linux; it only orders who
// runs first when the CPU is short, so background work still gets all the
// CPU the GUI does not use.
#pragma once
#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace ui {

inline QThreadPool* backgroundPool()
{
    static QThreadPool pool;
    static const bool configured = [] {
        pool.setObjectName(QStringLiteral("cachescope background"));
        pool.setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        return true;
    }();
    Q_UNUSED(configured);
    return &pool;
}

inline void lowerThisThreadsPriority()
{
    constexpr int kBackgroundNice = 10;
    thread_local bool lowered = false;
    if (lowered)
        return;
    lowered = true;
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kBackgroundNice);
}

// QtConcurrent::run(fn) on the background pool, at background priority.
template <typename Fn>
auto runInBackground(Fn&& fn)
{
    return QtConcurrent::run(backgroundPool(), [fn = std::forward<Fn>(fn)]() mutable {
        lowerThisThreadsPriority();
        return fn();
    });
}

} // namespace ui
