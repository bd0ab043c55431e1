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
    const bool tableGivesSizes = seekTable && seekTable->consistent && !seekTable->entries.empty()
                                 && seekTable->entries.size() == s.zstdFrames;
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

FrameSummary summarize(const std::vector<FrameInfo>& frames, const std::optional<SeekTableInfo>& seekTable,
                       uint64_t fileSize)
{
    FrameSummary s;
    s.fileSize = fileSize;
    uint64_t content = 0;
    bool contentOverflow = false;
    bool allChecksummed = true;
    for (const auto& f : frames) {
        s.compressedSize += f.compressedSize;
        if (f.compressedSize > s.largestFrameSize) {
            s.largestFrameSize = f.compressedSize;
            s.largestFrameIndex = f.index;
        }
        if (f.kind == FrameKind::Skippable) {
            ++s.skippableFrames;
            continue;
        }
        ++s.zstdFrames;
        allChecksummed = allChecksummed && f.checksum;
        if (f.contentSize) {
            ++s.sizedFrames;
            contentOverflow = contentOverflow || __builtin_add_overflow(content, *f.contentSize, &content);
        } else {
            ++s.unsizedFrames;
        }
    }
    s.allChecksummed = s.zstdFrames > 0 && allChecksummed;
    // No zstd frames at all decode to nothing: a known size of 0.
    if (s.unsizedFrames == 0 && !contentOverflow) {
        s.contentSize = content;
        s.ratio = s.compressedSize ? double(content) / double(s.compressedSize) : 0.0;
    }
    s.parallel = verdict(s, seekTable);
    return s;
}

} // namespace cs::frames
