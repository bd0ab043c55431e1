// Builds N.mapping from records that arrive in DECREASING offset order
// (the walk's order), without a sort and without a temporary file:
//   - add(): append the record to the file as it comes, through a small
//     buffer;
//   - finish(): reverse the file in place, swapping blocks from both ends
//     (record i <-> n-1-i).
// Both passes are sequential and use O(block) memory, whatever n is. The
// walk collapses ranges (never adjacent), so the result is sorted,
// non-overlapping and fully collapsed, as MappingFile.h requires. Prefix
// offsets are whatever the PrefixWriter chose (see PrefixWriter.h).
#pragma once
#include "core/util/File.h"

#include <cstdint>
#include <string>

namespace cs::gc {

class MappingBuilder {
public:
    explicit MappingBuilder(const std::string& path);
    explicit MappingBuilder(File file);   // an open, writable file (emptied first)
    void add(uint64_t offset, uint64_t prefixOffset, uint64_t length); // decreasing offsets
    // Reverses into increasing order, fsyncs, closes. Returns the record count.
    // liveBytes() is the sum of the records' lengths.
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
