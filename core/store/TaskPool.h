// A process-wide pool of worker threads for chunk compression and decoding.
// Shared by every merge and restore, so N concurrent restores use the same
// few threads (and their thread-local zstd contexts) instead of N sets:
// memory stays flat in N. Tasks must never block on other tasks.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cs::store {

class TaskPool {
public:
    static TaskPool& shared();   // hardware threads (at least 2); lives until exit
    explicit TaskPool(int threads);
    ~TaskPool();
    void submit(std::function<void()> task);
    int size() const { return int(workers_.size()); }

private:
    void run();
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    bool stop_ = false;
};

// Counts a group's tasks still running and lets the submitter wait for them,
// or for room below a bound of bytes in flight.
class TaskGroup {
public:
    void add(uint64_t bytes);
    void finish(uint64_t bytes);
    // Blocks while more than maxBytes are in flight (always lets one through).
    void waitBelow(uint64_t maxBytes);
    void waitAll();

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    uint64_t tasks_ = 0;
    uint64_t bytes_ = 0;
};

} // namespace cs::store
