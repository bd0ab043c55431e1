// Internal pieces shared by the snapshot writer and decoder (not a public
// header: use core/snapshot/Snapshot.h). Buffers, the temp-file-then-rename
// output, the SEEK_DATA/SEEK_HOLE extent scan, the seek table writer and the
// frame header pass of the decoder.
#pragma once
#include "core/util/Coding.h"
#include "core/frames/FrameReading.h"   // frames::WindowReader: the header pass's reads
#include "core/util/File.h"
#include "core/util/OutputFile.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cs::snapshot {

// User + system CPU seconds of the whole process so far.
double processCpuSeconds();
double monotonicSeconds();

// A heap buffer that only grows; contents are not preserved and not
// initialised (pages are touched only when written).
class Buffer {
public:
    char* data() { return data_.get(); }
    const char* data() const { return data_.get(); }
    size_t capacity() const { return capacity_; }
    void reserve(size_t size);
    void release() { data_.reset(); capacity_ = 0; }
private:
    std::unique_ptr<char[]> data_;
    size_t capacity_ = 0;
};

// Bytes the decoding threads may hold in frame buffers together. A thread
// charges what its buffers hold (their capacity, which only grows) before it
// grows them; when the budget has no room it gives back everything it holds
// and then waits for its whole need, so that two threads each holding part
// of the budget never wait on each other.
class MemoryBudget {
public:
    explicit MemoryBudget(uint64_t total) : free_(total) {}
    bool tryAcquire(uint64_t bytes);
    // Waits until bytes are free (true) or stop() says to give up (false);
    // stop is polled every few milliseconds.
    template <typename Stop> bool acquire(uint64_t bytes, Stop&& stop)
    {
        std::unique_lock lock(mutex_);
        while (free_ < bytes) {
            if (stop())
                return false;
            released_.wait_for(lock, std::chrono::milliseconds(20));
        }
        free_ -= bytes;
        return true;
    }
    void release(uint64_t bytes);
private:
    std::mutex mutex_;
    std::condition_variable released_;
    uint64_t free_;
};

// At most maxBuffers buffers of bufferSize bytes, allocated lazily, handed
// out and returned; acquire() blocks while all are out. shutdown() wakes every
// waiter, which then gets nullptr.
class BufferPool {
public:
    BufferPool(size_t bufferSize, size_t maxBuffers) : bufferSize_(bufferSize), maxBuffers_(maxBuffers) {}
    std::unique_ptr<Buffer> acquire();
    void release(std::unique_ptr<Buffer> buffer);
    void shutdown();
    size_t allocated() const;
    size_t bufferSize() const { return bufferSize_; }
private:
    const size_t bufferSize_;
    const size_t maxBuffers_;
    mutable std::mutex mutex_;
    std::condition_variable available_;
    std::vector<std::unique_ptr<Buffer>> free_;
    size_t allocated_ = 0;
    bool shutdown_ = false;
};

// Data and hole extents of a regular file, from SEEK_DATA/SEEK_HOLE. Holes
// shorter than minHole between data are reported as data (not worth a
// marker). Where the file system has no hole support everything is data.
struct Extent {
    uint64_t offset = 0;
    uint64_t length = 0;
    bool hole = false;
};

class SparseScan {
public:
    SparseScan(int fd, uint64_t size, std::string path, uint64_t minHole = 64 * 1024);
    // The extent that contains pos (pos < size).
    Extent extentAt(uint64_t pos);
private:
    uint64_t nextData(uint64_t pos);   // size when no data follows
    uint64_t nextHole(uint64_t pos);   // size at the end
    int fd_;
    uint64_t size_;
    std::string path_;
    uint64_t minHole_;
    bool supported_ = true;
};

// The seek table of the zstd seekable format: one entry per zstd frame.
class SeekTableWriter {
public:
    void add(uint32_t compressedSize, uint32_t decompressedSize, uint32_t checksum)
    {
        entries_.push_back({compressedSize, decompressedSize, checksum});
    }
    size_t frames() const { return entries_.size(); }
    // The whole skippable frame (magic, size, entries, footer).
    std::string frame() const;
private:
    struct Entry { uint32_t compressedSize, decompressedSize, checksum; };
    std::vector<Entry> entries_;
};

// The decoder's header pass: every frame of a file of concatenated zstd and
// skippable frames, with its extent and declared content size, checked
// against its block headers (so a declared size the blocks cannot hold is an
// error before anything is allocated).
struct ScannedFrame {
    uint64_t index = 0;
    uint64_t offset = 0;
    uint64_t compressedSize = 0;
    bool skippable = false;
    uint32_t magic = 0;
    std::optional<uint64_t> contentSize;   // zstd frames only
    bool hole = false;                     // a zstd frame announced by a hole marker
};

class FrameHeaderPass {
public:
    explicit FrameHeaderPass(const File& file);
    // Next frame, or nullopt at the end of the file. Throws cs::Error naming
    // the file, the frame's index and offset.
    std::optional<ScannedFrame> next();
    uint64_t position() const { return pos_; }
    uint64_t fileSize() const { return size_; }
    bool sawSeekTable() const { return seekTable_; }
private:
    [[noreturn]] void failFrame(uint64_t offset, const std::string& what) const;
    const File& file_;
    uint64_t size_ = 0;
    frames::FileFrameSource source_;
    // Headers of small frames sit close together: one read covers many
    // (10 M skippable frames were 10 M preads of 24 bytes).
    frames::WindowReader reader_;
    size_t readAhead_ = 64;
    uint64_t pos_ = 0;
    uint64_t index_ = 0;
    std::optional<uint64_t> pendingHole_;  // length announced by the last hole marker
    uint64_t pendingHoleOffset_ = 0;
    bool seekTable_ = false;
};

} // namespace cs::snapshot
