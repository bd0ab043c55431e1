// Frame headers through libzstd's ZSTD_getFrameHeader; the checks around it
// turn libzstd's error codes into sentences with the offset.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "core/frames/FrameReading.h"

#include "core/util/Error.h"

#include <cstdio>

namespace cs::frames {

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08X", v);
    return buf;
}

void readFrameHeader(WindowReader& reader, const ScanContext& ctx, FrameInfo& frame, uint32_t* blockSizeMax,
                     size_t readAhead)
{
    const uint64_t fileSize = reader.fileSize();
    size_t got = 0;
    const uint8_t* p = reader.at(frame.offset, ZSTD_FRAMEHEADERSIZE_MAX, &got, readAhead);
    if (got < 4)
        cs::failAt(ctx.path, frame.offset,
                   std::to_string(fileSize - frame.offset) + " trailing byte(s) "
                       + (frame.index ? "after frame " + std::to_string(frame.index - 1) : std::string("at the start"))
                       + " are too short to be a frame (trailing garbage or a truncated file)");
    const uint32_t magic = readLE32(p);
    frame.magic = magic;
    if ((magic & kSkippableMagicMask) == kSkippableMagicStart) {
        frame.kind = FrameKind::Skippable;
        if (got < ZSTD_SKIPPABLEHEADERSIZE)
            ctx.failAt(frame.offset, "file ends inside a skippable frame header");
        const uint32_t payload = readLE32(p + 4);
        frame.headerSize = ZSTD_SKIPPABLEHEADERSIZE;
        frame.compressedSize = uint64_t(ZSTD_SKIPPABLEHEADERSIZE) + payload;
        if (frame.compressedSize > fileSize - frame.offset)
            ctx.failAt(frame.offset, "skippable frame of " + std::to_string(frame.compressedSize)
                                         + " bytes runs past the end of the file (truncated: "
                                         + std::to_string(fileSize - frame.offset) + " bytes left)");
        return;
    }
    if (magic != kZstdMagic)
        cs::failAt(ctx.path, frame.offset,
                   "expected frame " + std::to_string(frame.index) + " but found bytes " + hex32(magic)
                       + ", which are neither a zstd nor a skippable frame magic ("
                       + (frame.index ? "trailing garbage or a corrupt file" : "not a zstd file") + ")");
    frame.kind = FrameKind::Zstd;
    if (got < 5)
        ctx.failAt(frame.offset, "file ends inside the frame header (truncated)");
    const uint8_t descriptor = p[4];
    if (descriptor & 0x08)
        ctx.failAt(frame.offset + 4, "frame header descriptor has its reserved bit 3 set");

    ZSTD_frameHeader zfh{};
    const size_t r = ZSTD_getFrameHeader(&zfh, p, got);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
            ctx.failAt(frame.offset, "frame header declares a window larger than the format allows");
        ctx.failAt(frame.offset, std::string("invalid frame header (") + ZSTD_getErrorName(r) + ")");
    }
    if (r > 0)
        ctx.failAt(frame.offset, "file ends inside the frame header (truncated: " + std::to_string(got)
                                     + " of " + std::to_string(r) + " bytes present)");
    frame.headerSize = zfh.headerSize;
    frame.windowSize = zfh.windowSize;
    frame.dictionaryId = zfh.dictID;
    if (zfh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN)
        frame.contentSize = zfh.frameContentSize;
    frame.singleSegment = (descriptor & 0x20) != 0;
    frame.checksum = zfh.checksumFlag != 0;
    *blockSizeMax = zfh.blockSizeMax;
}

} // namespace cs::frames
