#include "core/store/ChunkBuffers.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace cs::store {

namespace {

// Two per pool thread plus a reader's current chunk and one spare, for the
// usual 2-4 threads; beyond it, released buffers are freed.
constexpr size_t kMaxFree = 8;

struct FreeList {
    std::mutex mutex;
    std::vector<std::pair<char*, size_t>> buffers;
};

FreeList& freeList()
{
    static FreeList* list = new FreeList();   // never destroyed: buffers may be released at exit
    return *list;
}

} // namespace

ChunkBuffer::ChunkBuffer(size_t capacity)
{
    {
        FreeList& l = freeList();
        std::lock_guard g(l.mutex);
        auto it = std::find_if(l.buffers.begin(), l.buffers.end(), [&](const auto& b) { return b.second >= capacity; });
        if (it != l.buffers.end()) {
            data_ = it->first;
            capacity_ = it->second;
            l.buffers.erase(it);
            return;
        }
    }
    data_ = static_cast<char*>(::operator new(capacity));
    capacity_ = capacity;
}

ChunkBuffer::~ChunkBuffer()
{
    release();
}

ChunkBuffer::ChunkBuffer(ChunkBuffer&& o) noexcept
    : size(std::exchange(o.size, 0)), data_(std::exchange(o.data_, nullptr)), capacity_(std::exchange(o.capacity_, 0))
{
}

ChunkBuffer& ChunkBuffer::operator=(ChunkBuffer&& o) noexcept
{
    if (this != &o) {
        release();
        data_ = std::exchange(o.data_, nullptr);
        capacity_ = std::exchange(o.capacity_, 0);
        size = std::exchange(o.size, 0);
    }
    return *this;
}

void ChunkBuffer::release()
{
    if (!data_)
        return;
    {
        FreeList& l = freeList();
        std::lock_guard g(l.mutex);
        if (l.buffers.size() < kMaxFree) {
            l.buffers.emplace_back(std::exchange(data_, nullptr), capacity_);
            capacity_ = 0;
            size = 0;
            return;
        }
    }
    ::operator delete(std::exchange(data_, nullptr));
    capacity_ = 0;
    size = 0;
}

} // namespace cs::store
