// Totals over a scanned layout and the verdict on parallel decoding.
//
// A parallel decoder can always cut the stream at frame boundaries, but to
// write a frame's output straight into place it must know how many bytes
// every earlier frame decodes to. So the stream splits into pieces = zstd
// frames, and is "splittable" when there are at least two and every frame's
// content size is known (declared in its header, or given by a consistent
// seek table); otherwise the output can only be placed by decoding serially
// (or by buffering whole frames of unknown size).
#include "core/frames/FrameReading.h"

namespace cs::frames {

namespace {

ParallelVerdict verdict(const FrameSummary& s, const std::optional<SeekTableInfo>& seekTable)
{
    ParallelVerdict v;
    v.pieces = s.zstdFrames;
    // A consistent table was checked entry by entry against every zstd frame.
    const bool tableGivesSizes = seekTable && seekTable->consistent && seekTable->frames == s.zstdFrames;
    if (s.zstdFrames == 0) {
        v.reason = "The file holds no zstd frames, so there is nothing to decode.";
    } else if (s.zstdFrames == 1) {
        v.reason = "The stream is a single zstd frame, which only a serial decoder can decode.";
    } else if (s.unsizedFrames == 0) {
        v.splittable = true;
        v.reason = std::to_string(s.zstdFrames)
                   + " independent zstd frames all declare their content size, so each can be decoded straight into its place.";
    } else if (tableGivesSizes) {
        v.splittable = true;
        v.reason = std::to_string(s.unsizedFrames) + " of " + std::to_string(s.zstdFrames)
                   + " zstd frames do not declare their content size, but the seek table gives every frame's size, so each can be decoded straight into its place.";
    } else {
        v.reason = std::to_string(s.unsizedFrames) + " of " + std::to_string(s.zstdFrames)
                   + " zstd frames do not declare their content size, so a decoder cannot place their output without decoding serially or buffering whole frames.";
    }
    return v;
}

} // namespace

void FrameTally::add(const FrameInfo& f)
{
    s_.compressedSize += f.compressedSize;
    if (f.compressedSize > s_.largestFrameSize) {
        s_.largestFrameSize = f.compressedSize;
        s_.largestFrameIndex = f.index;
        s_.largestFrameOffset = f.offset;
    }
    if (f.kind == FrameKind::Skippable) {
        ++s_.skippableFrames;
        return;
    }
    ++s_.zstdFrames;
    allChecksummed_ = allChecksummed_ && f.checksum;
    if (f.contentSize) {
        ++s_.sizedFrames;
        contentOverflow_ = contentOverflow_ || __builtin_add_overflow(content_, *f.contentSize, &content_);
    } else {
        ++s_.unsizedFrames;
    }
}

FrameSummary FrameTally::finish(const std::optional<SeekTableInfo>& seekTable, uint64_t fileSize) const
{
    FrameSummary s = s_;
    s.fileSize = fileSize;
    s.allChecksummed = s.zstdFrames > 0 && allChecksummed_;
    // No zstd frames at all decode to nothing: a known size of 0.
    if (s.unsizedFrames == 0 && !contentOverflow_) {
        s.contentSize = content_;
        s.ratio = s.compressedSize ? double(content_) / double(s.compressedSize) : 0.0;
    }
    s.parallel = verdict(s, seekTable);
    return s;
}

} // namespace cs::frames
