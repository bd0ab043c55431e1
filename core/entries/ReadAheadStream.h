// Another ByteStream read ahead on a thread of its own, as `zstd -d`'s
// asyncio reads its input while it decodes: the reads of the stored blob
// (file reads, S3 GETs) overlap the decode instead of taking turns with it.
//
// Memory: kSlots buffers of kSlotBytes (4 MiB in all), whatever the stream.
// An error of the inner stream reaches the reader where it happened: the
// bytes before it are handed out first, then read() throws it. offset() is
// what was handed out, never what was read ahead. The destructor stops the
// thread after its current read (a read is bounded; nothing is left behind).
#pragma once
#include "core/entries/EntryBlob.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cs::entries {

class ReadAheadStream final : public ByteStream {
public:
    static constexpr size_t kSlots = 4;
    static constexpr size_t kSlotBytes = size_t(1) << 20;

    explicit ReadAheadStream(ByteStream& in);
    ~ReadAheadStream() override;
    ReadAheadStream(const ReadAheadStream&) = delete;
    ReadAheadStream& operator=(const ReadAheadStream&) = delete;

    size_t read(void* buf, size_t n) override;
    uint64_t offset() const override { return handedOut_; }

private:
    struct Slot {
        std::vector<char> bytes;
        size_t size = 0;          // filled bytes; 0 marks the end of the stream
    };
    void fill();

    ByteStream& in_;
    std::vector<Slot> slots_;
    std::mutex mutex_;
    std::condition_variable changed_;
    size_t filled_ = 0;           // slots filled by the thread (a count, modulo kSlots is the index)
    size_t taken_ = 0;            // slots the reader has finished
    bool ended_ = false;          // the thread has filled its last slot (or met an error)
    bool stop_ = false;
    std::exception_ptr error_;    // thrown once the slots before it are read
    size_t within_ = 0;           // read position inside the reader's current slot
    uint64_t handedOut_ = 0;
    std::thread thread_;
};

} // namespace cs::entries
