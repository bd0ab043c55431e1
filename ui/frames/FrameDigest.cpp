#include "ui/frames/FrameDigest.h"

#include <algorithm>
#include <bit>

namespace ui {

FrameCategory frameCategoryAt(const cs::PackedFrames& frames, size_t i)
{
    return frameCategory(frames.at(i));
}

int sizeBucketOf(uint64_t compressedSize)
{
    return compressedSize ? int(std::bit_width(compressedSize)) - 1 : 0;
}

FrameDigest digestFrames(const cs::PackedFrames& frames, uint64_t fileSize)
{
    FrameDigest d;
    d.fileSize = std::max(fileSize, frames.end());
    const size_t n = frames.size();
    const bool binned = n > FrameDigest::kMaxFramesDrawnOneByOne && d.fileSize > 0;
    if (binned)
        d.bins.resize(FrameDigest::kBins);
    const double binsPerByte = binned ? double(FrameDigest::kBins) / double(d.fileSize) : 0;
    for (size_t i = 0; i < n; ++i) {
        const auto c = size_t(frameCategoryAt(frames, i));
        const uint64_t offset = frames.offsetAt(i);
        const uint64_t size = frames.compressedSizeAt(i);
        ++d.counts[c];
        ++d.sizes[c][size_t(sizeBucketOf(size))];
        if (!binned)
            continue;
        // A frame's bytes go to every bin it covers, each its share.
        size_t bin = std::min(FrameDigest::kBins - 1, size_t(double(offset) * binsPerByte));
        ++d.bins[bin].frames[c];
        uint64_t at = offset;
        const uint64_t end = offset + size;
        while (at < end) {
            const uint64_t binEnd = bin + 1 >= FrameDigest::kBins
                                        ? end
                                        : std::max(at + 1, uint64_t(double(bin + 1) / binsPerByte));
            const uint64_t upTo = std::min(end, binEnd);
            d.bins[bin].bytes[c] += upTo - at;
            at = upTo;
            if (bin + 1 < FrameDigest::kBins)
                ++bin;
        }
    }
    return d;
}

} // namespace ui
