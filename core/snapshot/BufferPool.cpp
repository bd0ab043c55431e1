#include "core/snapshot/SnapshotInternal.h"

#include <sys/resource.h>

#include <chrono>

namespace cs::snapshot {

double processCpuSeconds()
{
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6 + double(ru.ru_stime.tv_sec)
        + double(ru.ru_stime.tv_usec) / 1e6;
}

double monotonicSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Buffer::reserve(size_t size)
{
    if (size <= capacity_)
        return;
    data_.reset();  // free first: never hold the old and the new buffer at once
    capacity_ = 0;
    data_.reset(new char[size]);  // uninitialised on purpose
    capacity_ = size;
}

std::unique_ptr<Buffer> BufferPool::acquire()
{
    std::unique_lock lock(mutex_);
    available_.wait(lock, [&] { return shutdown_ || !free_.empty() || allocated_ < maxBuffers_; });
    if (shutdown_)
        return nullptr;
    if (!free_.empty()) {
        auto b = std::move(free_.back());
        free_.pop_back();
        return b;
    }
    ++allocated_;
    lock.unlock();
    auto b = std::make_unique<Buffer>();
    b->reserve(bufferSize_);
    return b;
}

void BufferPool::release(std::unique_ptr<Buffer> buffer)
{
    if (!buffer)
        return;
    {
        std::lock_guard lock(mutex_);
        free_.push_back(std::move(buffer));
    }
    available_.notify_one();
}

void BufferPool::shutdown()
{
    {
        std::lock_guard lock(mutex_);
        shutdown_ = true;
    }
    available_.notify_all();
}

size_t BufferPool::allocated() const
{
    std::lock_guard lock(mutex_);
    return allocated_;
}

bool MemoryBudget::tryAcquire(uint64_t bytes)
{
    std::lock_guard lock(mutex_);
    if (free_ < bytes)
        return false;
    free_ -= bytes;
    return true;
}

void MemoryBudget::release(uint64_t bytes)
{
    if (bytes == 0)
        return;
    {
        std::lock_guard lock(mutex_);
        free_ += bytes;
    }
    released_.notify_all();
}

} // namespace cs::snapshot
