#include "ui/jobs/WorkerPool.h"

#include <cerrno>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace ui {

WorkerPool& WorkerPool::instance()
{
    static WorkerPool pool(std::max(4, int(std::thread::hardware_concurrency())));
    return pool;
}

WorkerPool::WorkerPool(int maxThreads) : maxThreads_(std::max(1, maxThreads)) {}

WorkerPool::~WorkerPool()
{
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        dropped.swap(tasks_);
    }
    wake_.notify_all();
    for (std::thread& t : threads_)
        t.join();
}

void WorkerPool::post(std::function<void()> task)
{
    std::unique_lock lock(mutex_);
    if (stopping_)
        return;   // the process is exiting: dropped like the tasks still queued
    tasks_.push_back(std::move(task));
    // Each waiting thread takes one queued task; start another thread while
    // more tasks wait than threads are idle, up to the limit.
    if (int(tasks_.size()) > idle_ && int(threads_.size()) < maxThreads_)
        threads_.emplace_back([this] { serve(); });
    lock.unlock();
    wake_.notify_one();
}

int WorkerPool::busyThreads() const
{
    std::lock_guard lock(mutex_);
    return busy_;
}

void WorkerPool::serve()
{
    lowerThisThreadsPriority();
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_;
        wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        --idle_;
        if (stopping_)
            return;
        std::function<void()> task = std::move(tasks_.front());
        tasks_.pop_front();
        ++busy_;
        lock.unlock();
        task();
        task = nullptr;   // its captures go before the thread counts as idle
        lock.lock();
        --busy_;
    }
}

void lowerThisThreadsPriority()
{
    constexpr int kBackgroundNiceAbove = 10;   // above the nice value the thread was started with
    constexpr int kLowestNice = 19;
    thread_local bool lowered = false;
    if (lowered)
        return;
    lowered = true;
    // Relative to what the thread inherited (the GUI thread's): under `nice
    // -n 10` a fixed 10 left the workers level with the GUI thread, which
    // then waited 40-150 ms at a time for a CPU behind them (a sort's
    // rescan, an entry's contents read) on a loaded machine. Never raised:
    // in a process started under `nice -n 19` with the right to lower a
    // nice value (root), setting 10 put the workers above the GUI thread.
    const id_t self = static_cast<id_t>(::gettid());
    errno = 0;
    const int current = ::getpriority(PRIO_PROCESS, self);
    if (errno != 0)
        return;
    const int wanted = std::min(kLowestNice, current + kBackgroundNiceAbove);
    if (wanted > current)
        ::setpriority(PRIO_PROCESS, self, wanted);
}

} // namespace ui
