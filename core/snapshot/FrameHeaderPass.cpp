#include "core/snapshot/SnapshotInternal.h"

#include "core/snapshot/Snapshot.h"
#include "core/util/Error.h"
#include "core/util/Units.h"

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstdio>

namespace cs::snapshot {

FrameHeaderPass::FrameHeaderPass(const File& file)
    : file_(file), size_(file.size()), source_(file), reader_(source_, size_)
{
}

void FrameHeaderPass::failFrame(uint64_t offset, const std::string& what) const
{
    failAt(file_.path(), offset, "frame " + std::to_string(index_) + ": " + what);
}

std::optional<ScannedFrame> FrameHeaderPass::next()
{
    if (pos_ >= size_) {
        if (pendingHole_)
            failFrame(pendingHoleOffset_, "hole marker is not followed by a zstd frame");
        return std::nullopt;
    }
    const uint64_t start = pos_;
    uint8_t head[24] = {};  // a zstd frame header (<= 18 bytes) or a hole marker (20)
    size_t have = 0;
    const uint8_t* read = reader_.at(start, sizeof head, &have, readAhead_);
    std::memcpy(head, read, have);
    if (have < 4)
        failFrame(start, "file ends inside a frame's magic number (" + std::to_string(have) + " bytes left)");
    ScannedFrame f;
    f.index = index_;
    f.offset = start;
    f.magic = readLE32(head);

    if ((f.magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START) {
        if (have < 8)
            failFrame(start, "file ends inside a skippable frame header");
        const uint64_t payload = readLE32(head + 4);
        if (start + 8 + payload > size_)
            failFrame(start, "skippable frame of " + std::to_string(payload) + " bytes runs past the end of the file ("
                                 + std::to_string(size_) + " bytes)");
        if (pendingHole_)
            failFrame(start, "hole marker at offset " + std::to_string(pendingHoleOffset_)
                                 + " is followed by a skippable frame instead of a zstd frame");
        f.skippable = true;
        f.compressedSize = 8 + payload;
        if (f.magic == kHoleMarkerMagic) {
            if (payload != kHoleMarkerPayloadSize || std::memcmp(head + 8, "hole", 4) != 0)
                failFrame(start, "skippable frame with the hole-marker magic 0x184D2A5D has a malformed payload");
            pendingHole_ = readLE64(head + 12);
            pendingHoleOffset_ = start;
        } else if (f.magic == kSeekTableMagic) {
            seekTable_ = true;
        }
        pos_ = start + f.compressedSize;
        readAhead_ = f.compressedSize < 4096 ? 64 * 1024 : 64;
        ++index_;
        return f;
    }
    if (f.magic != ZSTD_MAGICNUMBER) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08X", f.magic);
        failFrame(start, std::string("not a zstd or skippable frame (magic ") + hex + ")");
    }

    ZSTD_frameHeader zfh {};
    const size_t hr = ZSTD_getFrameHeader(&zfh, head, have);
    if (ZSTD_isError(hr))
        failFrame(start, std::string("invalid frame header: ") + ZSTD_getErrorName(hr));
    if (hr != 0)
        failFrame(start, "file ends inside the frame header");
    if (zfh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN)
        f.contentSize = zfh.frameContentSize;

    // Walk the block headers: the frame's extent, and an upper bound on what
    // its blocks can decode to (raw and RLE exactly, compressed at most one
    // maximum block each).
    const uint64_t blockMax = std::max<uint64_t>(zfh.blockSizeMax, 1);
    uint64_t pos = start + zfh.headerSize;
    uint64_t bound = 0;
    uint64_t block = 0;
    size_t hint = readAhead_;
    for (;;) {
        size_t got = 0;
        const uint8_t* bh = reader_.at(pos, 3, &got, hint);
        if (got != 3)
            failFrame(start, "file ends inside block " + std::to_string(block) + " header at offset "
                                 + std::to_string(pos) + " (truncated)");
        const uint32_t h = readLE24(bh);
        const bool last = h & 1;
        const uint32_t type = (h >> 1) & 3;
        const uint64_t bsize = h >> 3;
        if (type == 3)
            failFrame(start, "block " + std::to_string(block) + " at offset " + std::to_string(pos)
                                 + " has the reserved block type");
        if (bsize > blockMax)
            failFrame(start, "block " + std::to_string(block) + " at offset " + std::to_string(pos) + " claims "
                                 + formatSize(bsize) + ", larger than the " + formatSize(blockMax) + " maximum");
        const uint64_t payload = type == 1 ? 1 : bsize;
        bound += type == 2 ? blockMax : bsize;
        pos += 3 + payload;
        hint = payload < 2048 ? 16384 : 64;
        if (pos > size_)
            failFrame(start, "block " + std::to_string(block) + " runs past the end of the file (truncated)");
        ++block;
        if (last)
            break;
    }
    if (zfh.checksumFlag) {
        pos += 4;
        if (pos > size_)
            failFrame(start, "file ends inside the frame checksum (truncated)");
    }
    if (f.contentSize && *f.contentSize > bound)
        failFrame(start, "header declares a content size of " + std::to_string(*f.contentSize)
                             + " bytes but its blocks can hold at most " + std::to_string(bound)
                             + " bytes (corrupt header)");
    f.compressedSize = pos - start;
    if (pendingHole_) {
        if (!f.contentSize || *f.contentSize != *pendingHole_)
            failFrame(start, "hole marker at offset " + std::to_string(pendingHoleOffset_) + " announces "
                                 + std::to_string(*pendingHole_) + " bytes but the zstd frame after it "
                                 + (f.contentSize ? "declares " + std::to_string(*f.contentSize) : std::string("declares no size")));
        f.hole = true;
        pendingHole_.reset();
    }
    pos_ = pos;
    readAhead_ = f.compressedSize < 4096 ? 64 * 1024 : 64;
    ++index_;
    return f;
}

} // namespace cs::snapshot
