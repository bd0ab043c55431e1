// Reused buffers for the merge's chunks and compressed objects.
//
// A merge used to build every chunk in a fresh std::string and compress it
// into another two (frame, object), each 1-4 MiB: with the store's 256 KiB
// mmap threshold (TaskPool.cpp) every one was an mmap, a page fault and
// zero-fill per 4 KiB page, and an munmap, i.e. more system time than the
// compression itself (strace of an 800 MiB first restore: 4,884 mmap/munmap
// pairs). Buffers taken here go back to a small process-wide free list when
// released, so their pages stay mapped and are written again, not faulted
// in again. The list keeps at most kMaxFree buffers: memory stays bounded by
// what is in flight plus that.
#pragma once
#include <cstddef>
#include <memory>

namespace cs::store {

class ChunkBuffer {
public:
    ChunkBuffer() = default;
    explicit ChunkBuffer(size_t capacity);   // from the free list when one is large enough
    ~ChunkBuffer();
    ChunkBuffer(ChunkBuffer&& o) noexcept;
    ChunkBuffer& operator=(ChunkBuffer&& o) noexcept;
    ChunkBuffer(const ChunkBuffer&) = delete;
    ChunkBuffer& operator=(const ChunkBuffer&) = delete;

    char* data() const { return data_; }
    size_t capacity() const { return capacity_; }
    size_t size = 0;   // bytes in use

private:
    void release();
    char* data_ = nullptr;
    size_t capacity_ = 0;
};

} // namespace cs::store
