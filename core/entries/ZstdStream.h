// Decoded bytes of a zstd stream (concatenated zstd and skippable frames)
// read from another ByteStream, with the window limit set from a memory
// budget. The decoder's window is the one cost that grows with the input:
// `@actions/cache` compresses with `zstd -T0 --long=30`, whose frames
// declare a 1 GiB window, and decoding one touches up to min(window,
// content) bytes. Every frame header is read before the frame is decoded,
// so a window above the budget is refused with a sentence naming it, before
// any of it is allocated; windows above kMaxWindow (2 GiB) are refused
// whatever the budget. Each frame's checksum is checked as `zstd -d` does.
//
// Memory: the window (at most the budget), plus kInputBuffer and libzstd's
// own block buffers (~256 KiB).
#pragma once
#include "core/entries/EntryBlob.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cs::entries {

constexpr uint64_t kGiB = uint64_t(1) << 30;
// The default budget admits the client's --long=30 window (1 GiB).
constexpr uint64_t kDefaultMemoryBudget = kGiB;
constexpr uint64_t kMaxWindow = 2 * kGiB;
constexpr size_t kInputBuffer = size_t(1) << 20;

class ZstdStream final : public ByteStream {
public:
    // name prefixes every error ("entry ID ('KEY')"); offsets in errors are
    // those of the compressed stream. memoryBudget caps the window.
    ZstdStream(ByteStream& in, std::string name, uint64_t memoryBudget = kDefaultMemoryBudget);
    ~ZstdStream() override;
    ZstdStream(const ZstdStream&) = delete;
    ZstdStream& operator=(const ZstdStream&) = delete;

    // Decoded bytes; 0 at the end. Throws cs::Error naming the stream, the
    // frame and the compressed offset: a window above the budget, a stream
    // that ends inside a frame, corrupt data, a checksum mismatch, or bytes
    // after the last frame that start no frame.
    size_t read(void* buf, size_t n) override;
    uint64_t offset() const override { return decoded_; }   // decoded bytes handed out
    uint64_t inputOffset() const { return consumed_; }      // compressed bytes decoded so far
    uint64_t frames() const { return frames_; }             // frames begun
    uint64_t dataFrames() const { return dataFrames_; }     // zstd frames begun (not skippable ones)
    uint64_t unsizedFrames() const { return unsized_; }     // of those, frames that declare no content size
    uint64_t largestWindow() const { return largestWindow_; }

private:
    bool fillInput();
    void startFrame();
    struct State;
    std::unique_ptr<State> s_;
    ByteStream& in_;
    std::string name_;
    uint64_t budget_;
    uint64_t decoded_ = 0;
    uint64_t consumed_ = 0;
    uint64_t frames_ = 0;
    uint64_t dataFrames_ = 0;
    uint64_t unsized_ = 0;
    uint64_t frameStart_ = 0;
    uint64_t largestWindow_ = 0;
    bool inFrame_ = false;
    bool inputEnded_ = false;
};

} // namespace cs::entries
