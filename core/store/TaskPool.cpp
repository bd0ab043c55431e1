#include "core/store/TaskPool.h"

#include <malloc.h>

namespace cs::store {

TaskPool& TaskPool::shared()
{
    static const bool mallocTuned = [] {
        // Chunk buffers (0.25-4 MiB) come and go on many threads. glibc raises
        // its mmap threshold after the first such free and then keeps them in
        // per-thread arenas, where fragmentation makes RSS grow with every
        // concurrent restore (measured: 141 MiB instead of 70 for 8 cold
        // restores). A fixed threshold returns them to the system at free.
        return mallopt(M_MMAP_THRESHOLD, 256 * 1024) == 1;
    }();
    (void)mallocTuned;
    // Never destroyed: worker threads hold thread-local zstd contexts and may
    // run while static destructors do.
    static TaskPool* pool = new TaskPool(std::max(2u, std::thread::hardware_concurrency()));
    return *pool;
}

TaskPool::TaskPool(int threads)
{
    for (int i = 0; i < threads; ++i)
        workers_.emplace_back([this] { run(); });
}

TaskPool::~TaskPool()
{
    {
        std::lock_guard g(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_)
        t.join();
}

void TaskPool::submit(std::function<void()> task)
{
    {
        std::lock_guard g(mutex_);
        queue_.push_back(std::move(task));
    }
    wake_.notify_one();
}

void TaskPool::run()
{
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (queue_.empty())
                return;
            task = std::move(queue_.front());
            queue_.pop_front();
        }
        task();
    }
}

void TaskGroup::add(uint64_t bytes)
{
    std::lock_guard g(mutex_);
    ++tasks_;
    bytes_ += bytes;
}

void TaskGroup::finish(uint64_t bytes)
{
    // Notify under the lock: the waiter may destroy the group once it returns.
    std::lock_guard g(mutex_);
    --tasks_;
    bytes_ -= bytes;
    cv_.notify_all();
}

void TaskGroup::waitBelow(uint64_t maxBytes)
{
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return tasks_ == 0 || bytes_ < maxBytes; });
}

void TaskGroup::waitAll()
{
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return tasks_ == 0; });
}

} // namespace cs::store
