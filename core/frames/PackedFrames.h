// The frames of a scanned file in 32 bytes each, for a view that shows all of
// them (the GUI's frame document: 10 M frames in 320 MB, where FrameInfo
// costs 136 B and a growing vector twice that while it reallocates).
//
// A record keeps what a view shows of a frame and nothing it can derive:
//   - the index is the record's position, and the frames are contiguous, so
//     a frame's compressed size is the next frame's offset minus its own
//     (the last one ends at end());
//   - the window size is its descriptor (exponent and mantissa, RFC 8878
//     3.1.1.1.2), or the content size for a single-segment frame;
//   - block counts take 24 bits each;
//   - a skippable frame keeps its magic where a zstd frame keeps its
//     dictionary id.
// What does not fit (a block count of 2^24 or more, a window no descriptor
// gives) goes to a side table, which only frames of many MiB can need.
// Records live in chunks of 64 Ki (2 MiB), so appending never copies the
// frames already held and at most one chunk is partly empty. Not kept: the
// block list and the checksum's value.
#pragma once
#include "core/frames/FrameLayout.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace cs {

class PackedFrames {
public:
    static constexpr size_t kRecordSize = 32;

    // Frames must come in file order, each starting where the last ended
    // (as every scan gives them); throws std::invalid_argument otherwise.
    void append(const FrameInfo& frame);

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint64_t end() const { return end_; }   // where the last frame ends

    FrameInfo at(size_t i) const;           // blockList left empty, checksumValue 0
    uint64_t offsetAt(size_t i) const { return record(i).offset; }
    uint64_t compressedSizeAt(size_t i) const { return (i + 1 < size_ ? record(i + 1).offset : end_) - record(i).offset; }
    FrameKind kindAt(size_t i) const;
    // The frame holding byte offset `at` (the last one for at >= end()), or
    // size() when there are no frames.
    size_t frameHolding(uint64_t at) const;

    // Bytes held: the chunks and the side table.
    size_t bytesHeld() const;

private:
    struct Record {
        uint64_t offset;
        uint64_t contentSize;
        uint32_t dictionaryOrMagic;
        uint8_t blocks[9];        // three 24-bit little-endian counts (raw, RLE, compressed)
        uint8_t headerSize;
        uint8_t window;           // (exponent - 10) << 3 | mantissa
        uint8_t flags;
    };
    static_assert(sizeof(Record) == kRecordSize);
    struct Extra {
        uint64_t windowSize = 0;
        std::array<uint64_t, 3> blocks{};
    };
    static constexpr size_t kChunkShift = 16;
    static constexpr size_t kChunk = size_t(1) << kChunkShift;

    const Record& record(size_t i) const { return chunks_[i >> kChunkShift][i & (kChunk - 1)]; }

    std::vector<std::unique_ptr<Record[]>> chunks_;
    std::unordered_map<size_t, Extra> extra_;
    size_t size_ = 0;
    uint64_t end_ = 0;
};

} // namespace cs
