#include "core/frames/PackedFrames.h"

#include "core/frames/FrameReading.h"

#include <bit>
#include <stdexcept>

namespace cs {

namespace {

enum Flag : uint8_t {
    kSkippable = 1 << 0,
    kRoleShift = 1,            // bits 1-2: SkippableRole
    kHasContent = 1 << 3,
    kSingleSegment = 1 << 4,
    kChecksum = 1 << 5,
    kHasExtra = 1 << 6,        // window and block counts in the side table
    kWindowIsContent = 1 << 7, // a single-segment frame's window is its content size
};

constexpr uint64_t kMax24 = (uint64_t(1) << 24) - 1;

// The window descriptor byte that gives windowSize: 2^e + m * 2^(e-3) with
// e = 10 + exponent (0..31) and m the mantissa (0..7).
std::optional<uint8_t> windowCode(uint64_t windowSize)
{
    if (windowSize < (uint64_t(1) << 10))
        return std::nullopt;
    const int e = 63 - std::countl_zero(windowSize);
    if (e > 10 + 31)
        return std::nullopt;
    const uint64_t base = uint64_t(1) << e;
    const uint64_t step = base >> 3;
    const uint64_t rest = windowSize - base;
    if (rest % step != 0 || rest / step > 7)
        return std::nullopt;
    return uint8_t((e - 10) << 3 | int(rest / step));
}

uint64_t windowOfCode(uint8_t code)
{
    const uint64_t base = uint64_t(1) << (10 + (code >> 3));
    return base + (base >> 3) * (code & 7);
}

} // namespace

void PackedFrames::append(const FrameInfo& f)
{
    if (f.offset != end_ || f.index != size_)
        throw std::invalid_argument("PackedFrames: frame " + std::to_string(f.index) + " at offset "
                                    + std::to_string(f.offset) + " does not follow the last frame");
    if ((size_ & (kChunk - 1)) == 0)
        chunks_.push_back(std::make_unique_for_overwrite<Record[]>(kChunk));
    Record& r = chunks_.back()[size_ & (kChunk - 1)];
    r = Record{};
    r.offset = f.offset;
    const bool skippable = f.kind == FrameKind::Skippable;
    uint8_t flags = skippable ? kSkippable : 0;
    flags |= uint8_t(uint8_t(f.role) << kRoleShift);
    r.dictionaryOrMagic = skippable ? f.magic : f.dictionaryId;
    r.headerSize = uint8_t(f.headerSize);
    if (f.contentSize) {
        flags |= kHasContent;
        r.contentSize = *f.contentSize;
    }
    if (f.singleSegment)
        flags |= kSingleSegment;
    if (f.checksum)
        flags |= kChecksum;
    bool extra = f.blocks[0] > kMax24 || f.blocks[1] > kMax24 || f.blocks[2] > kMax24;
    if (!skippable) {
        if (f.contentSize && f.windowSize == *f.contentSize)
            flags |= kWindowIsContent;
        else if (const auto code = windowCode(f.windowSize))
            r.window = *code;
        else
            extra = true;
    }
    if (extra) {
        flags |= kHasExtra;
        extra_[size_] = Extra{f.windowSize, {f.blocks[0], f.blocks[1], f.blocks[2]}};
    } else {
        for (int t = 0; t < 3; ++t)
            for (int b = 0; b < 3; ++b)
                r.blocks[t * 3 + b] = uint8_t(f.blocks[t] >> (8 * b));
    }
    r.flags = flags;
    ++size_;
    end_ = f.offset + f.compressedSize;
}

FrameKind PackedFrames::kindAt(size_t i) const
{
    return (record(i).flags & kSkippable) ? FrameKind::Skippable : FrameKind::Zstd;
}

FrameInfo PackedFrames::at(size_t i) const
{
    const Record& r = record(i);
    FrameInfo f;
    f.index = i;
    f.offset = r.offset;
    f.compressedSize = compressedSizeAt(i);
    f.kind = kindAt(i);
    f.role = SkippableRole((r.flags >> kRoleShift) & 3);
    f.headerSize = r.headerSize;
    if (r.flags & kHasContent)
        f.contentSize = r.contentSize;
    f.singleSegment = (r.flags & kSingleSegment) != 0;
    f.checksum = (r.flags & kChecksum) != 0;
    if (f.kind == FrameKind::Skippable) {
        f.magic = r.dictionaryOrMagic;
    } else {
        f.magic = frames::kZstdMagic;
        f.dictionaryId = r.dictionaryOrMagic;
        f.windowSize = (r.flags & kWindowIsContent) ? r.contentSize : windowOfCode(r.window);
    }
    if (r.flags & kHasExtra) {
        const Extra& e = extra_.at(i);
        if (f.kind == FrameKind::Zstd && !(r.flags & kWindowIsContent))
            f.windowSize = e.windowSize;
        for (int t = 0; t < 3; ++t)
            f.blocks[t] = e.blocks[size_t(t)];
    } else {
        for (int t = 0; t < 3; ++t)
            f.blocks[t] = uint64_t(r.blocks[t * 3]) | uint64_t(r.blocks[t * 3 + 1]) << 8
                          | uint64_t(r.blocks[t * 3 + 2]) << 16;
    }
    return f;
}

size_t PackedFrames::frameHolding(uint64_t at) const
{
    if (size_ == 0)
        return 0;
    // The last frame whose offset is <= at.
    size_t lo = 0, hi = size_;
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (record(mid).offset <= at)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

size_t PackedFrames::bytesHeld() const
{
    return chunks_.size() * kChunk * sizeof(Record) + extra_.size() * (sizeof(Extra) + 4 * sizeof(void*));
}

} // namespace cs
