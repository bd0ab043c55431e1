// Builds N.mapping from live ranges that arrive in DECREASING offset order,
// without a sort and without a temporary file.
//
// The prefix lays the live ranges out in increasing offset order, so a
// range's prefix offset is (total live bytes) - (live bytes at or above
// it). The total is known only when the walk ends, but "live bytes at or
// above" is known at once. So:
//   - add(): append the record (offset, liveBytesAtOrAbove, length) to the
//     file as it comes (decreasing order), through a small buffer;
//   - finish(): now that the count n and the total T are known, reverse the
//     file in place, swapping blocks from both ends (record i <-> n-1-i),
//     and turn each middle field into T - liveBytesAtOrAbove.
// Both passes are sequential and use O(block) memory, whatever n is.
// Ranges are already collapsed by the walk (never adjacent), and prefix
// offsets are contiguous, so the result is sorted, non-overlapping and
// fully collapsed, as MappingFile.h requires.
#pragma once
#include "core/util/File.h"

#include <cstdint>
#include <string>

namespace cs::gc {

class MappingBuilder {
public:
    explicit MappingBuilder(const std::string& path);
    void add(uint64_t offset, uint64_t length); // decreasing offsets
    // Reverses into increasing order, fsyncs, closes. Returns the record count.
    uint64_t finish();
    uint64_t liveBytes() const { return liveBytes_; }

private:
    void flush();
    File file_;
    std::string buffer_;
    uint64_t count_ = 0;
    uint64_t liveBytes_ = 0;
    uint64_t lastOffset_ = UINT64_MAX;
};

} // namespace cs::gc
