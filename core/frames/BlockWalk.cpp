// Finds where a zstd frame ends by walking its 3-byte block headers and
// skipping the block contents: libzstd's ZSTD_findFrameCompressedSize would
// need the whole frame in memory, which a header-only scan never holds.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "core/frames/FrameReading.h"

#include "core/util/Units.h"

namespace cs::frames {

namespace {
constexpr uint64_t kTickEveryBlocks = 4096;
}

void walkBlocks(WindowReader& reader, const ScanContext& ctx, FrameInfo& frame, uint32_t blockSizeMax,
                bool listBlocks, const std::function<void(uint64_t offset)>& tick)
{
    const uint64_t fileSize = reader.fileSize();
    uint64_t pos = frame.offset + frame.headerSize;
    size_t hint = 64;
    for (uint64_t n = 0;; ++n) {
        size_t got = 0;
        const uint8_t* p = reader.at(pos, 3, &got, hint);
        if (got < 3)
            ctx.failAt(pos, "file ends inside the header of block " + std::to_string(n) + " (truncated)");
        const uint32_t h = readLE24(p);
        const bool last = (h & 1) != 0;
        const uint32_t type = (h >> 1) & 3;
        const uint32_t size = h >> 3;
        if (type == 3)
            ctx.failAt(pos, "block " + std::to_string(n) + " has the reserved block type 3");
        if (size > blockSizeMax)
            ctx.failAt(pos, "block " + std::to_string(n) + " header claims " + formatSize(size) + " (" + std::to_string(size)
                                + " bytes), larger than the " + formatSize(blockSizeMax) + " (" + std::to_string(blockSizeMax)
                                + " bytes) maximum of this frame (the smaller of its window and 128 KiB)");
        const auto blockType = BlockType(type);
        const uint64_t payload = blockType == BlockType::Rle ? 1 : size;
        if (payload > fileSize - pos - 3)
            ctx.failAt(pos, "block " + std::to_string(n) + " of " + std::to_string(payload)
                                + " bytes runs past the end of the file (truncated: "
                                + std::to_string(fileSize - pos - 3) + " bytes left)");
        ++frame.blocks[type];
        if (listBlocks)
            frame.blockList.push_back(
                {pos, blockType, uint32_t(payload), blockType == BlockType::Compressed ? 0u : size, last});
        pos += 3 + payload;
        // Small blocks sit close together: one larger read then covers many headers.
        hint = payload < 2048 ? 16384 : 64;
        if (last)
            break;
        if (n % kTickEveryBlocks == kTickEveryBlocks - 1)
            tick(pos);
    }
    if (frame.checksum) {
        size_t got = 0;
        const uint8_t* p = fileSize - pos < 4 ? nullptr : reader.at(pos, 4, &got);
        if (got < 4)
            ctx.failAt(pos, "file ends inside the frame's 4-byte checksum (truncated)");
        frame.checksumValue = readLE32(p);
        pos += 4;
    }
    frame.compressedSize = pos - frame.offset;

    // When the whole frame happens to be in the read window, libzstd can say
    // where it ends too; a disagreement means one of us misread the frame.
    if (frame.compressedSize <= 64 * 1024 && reader.holds(frame.offset, size_t(frame.compressedSize))) {
        size_t got = 0;
        const uint8_t* whole = reader.at(frame.offset, size_t(frame.compressedSize), &got);
        const size_t z = ZSTD_findFrameCompressedSize(whole, got);
        if (ZSTD_isError(z) || z != frame.compressedSize)
            ctx.failAt(frame.offset, "frame size from its block headers (" + std::to_string(frame.compressedSize)
                                         + " bytes) disagrees with libzstd ("
                                         + (ZSTD_isError(z) ? std::string(ZSTD_getErrorName(z)) : std::to_string(z)) + ")");
    }
}

} // namespace cs::frames
