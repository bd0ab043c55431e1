// The GUI's worker threads: a pool of its own, at a lower CPU priority than
// the GUI, built on std::thread, std::mutex and std::condition_variable.
//
// Its own pool, not QThreadPool::globalInstance(): Qt's raster paint engine
// splits large fills over the global pool and blocks the GUI thread until
// they are done, so a catalog scan or a GC occupying the global pool's
// threads (two on a 2-core machine) froze repaints for as long as the scan
// ran (60-100 ms measured while a 200k-entry store opened).
//
// Not a QThreadPool: the hand-over of a task to a worker happens in our code
// with primitives ThreadSanitizer models, so a TSan build checks what a task
// reads against what the GUI thread wrote before posting it (a QThreadPool's
// queue is synchronised inside the distribution's libQt6Core, which TSan
// cannot see; docs/reliability.md, Sanitizers). Nothing here touches Qt.
//
// Lower priority (10 nice steps below the GUI thread, at most 19): a nice value is per thread on Linux; it only orders who
// runs first when the CPU is short, so background work still gets all the
// CPU the GUI does not use. Threads start when tasks need them, up to
// maxThreads(), and stay for the life of the process; at exit the pool
// drops the tasks that have not started and joins its threads.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ui {

class WorkerPool {
public:
    // The process's pool (max(4, cores) threads).
    static WorkerPool& instance();

    explicit WorkerPool(int maxThreads);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Runs task on one of the threads, in the order posted. A task must not throw.
    void post(std::function<void()> task);

    int maxThreads() const { return maxThreads_; }
    // Threads running a task now.
    int busyThreads() const;

private:
    void serve();

    const int maxThreads_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> tasks_;
    std::vector<std::thread> threads_;
    int idle_ = 0;
    int busy_ = 0;
    bool stopping_ = false;
};

// Sets the calling thread's nice value 10 above the one it has (the GUI
// thread's, which a new thread inherits), at most 19, once; it is never
// raised.
void lowerThisThreadsPriority();

} // namespace ui
