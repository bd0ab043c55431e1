// What the frame view draws from a file's frames besides the table, computed
// once on the worker that scanned it (one pass over the packed frames), so the
// GUI thread never walks millions of frames: the count of each category for
// the legend, the size histogram, and the band aggregated into bins of the
// file (bytes and frames of each category per bin).
#pragma once
#include "core/frames/PackedFrames.h"
#include "ui/frames/FrameCategory.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ui {

struct FrameDigest {
    // Files of at most this many frames are drawn frame by frame; larger ones
    // from bins.
    static constexpr size_t kMaxFramesDrawnOneByOne = 16384;
    static constexpr size_t kBins = 4096;
    struct Bin {
        std::array<uint64_t, kFrameCategoryCount> bytes{};
        std::array<uint32_t, kFrameCategoryCount> frames{};   // frames starting in the bin
    };
    using Buckets = std::array<uint64_t, 64>;   // bucket b: compressed sizes in [2^b, 2^(b+1))

    uint64_t fileSize = 0;
    std::array<uint64_t, kFrameCategoryCount> counts{};
    std::array<Buckets, kFrameCategoryCount> sizes{};
    std::vector<Bin> bins;   // kBins of them, or none when the frames are few
};

FrameCategory frameCategoryAt(const cs::PackedFrames& frames, size_t i);
int sizeBucketOf(uint64_t compressedSize);

FrameDigest digestFrames(const cs::PackedFrames& frames, uint64_t fileSize);

} // namespace ui
