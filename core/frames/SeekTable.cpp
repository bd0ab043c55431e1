// The zstd seekable format's seek table (contrib/seekable_format in the zstd
// sources) and pzstd's size frames.
//
// Seek table = skippable frame, magic 0x184D2A5E, last in the file:
//   u32 magic | u32 frame size | entries | footer
//   entry  = u32 compressed size | u32 decompressed size | [u32 XXH64 low bits]
//   footer = u32 number of frames | u8 descriptor (bit 7 checksums, bits 2-6
//            reserved, must be 0) | u32 0x8F92EAB1
// pzstd   = before every zstd frame a skippable frame with magic 0x184D2A50
//            and a 4-byte payload: the next frame's compressed size.
#include "core/frames/FrameReading.h"

#include "core/util/File.h"

namespace cs::frames {

std::optional<SeekFooter> readSeekFooter(WindowReader& reader)
{
    const uint64_t fileSize = reader.fileSize();
    if (fileSize < 8 + kSeekTableFooterSize)
        return std::nullopt;
    size_t got = 0;
    const uint8_t* p = reader.at(fileSize - kSeekTableFooterSize, kSeekTableFooterSize, &got);
    if (got < kSeekTableFooterSize || readLE32(p + 5) != kSeekableFooterMagic)
        return std::nullopt;
    SeekFooter footer;
    footer.frames = readLE32(p);
    footer.descriptor = p[4];
    const uint64_t entrySize = (footer.descriptor & 0x80) ? 12 : 8;
    const uint64_t tableFrameSize = 8 + uint64_t(footer.frames) * entrySize + kSeekTableFooterSize;
    if (tableFrameSize > fileSize)
        return std::nullopt;
    footer.tableFrameOffset = fileSize - tableFrameSize;
    return footer;
}

SkippableRole skippableRole(const FrameInfo& frame, const std::optional<SeekFooter>& footer, uint64_t fileSize)
{
    if (frame.magic == kSeekTableMagic && footer && frame.offset == footer->tableFrameOffset
        && frame.offset + frame.compressedSize == fileSize)
        return SkippableRole::SeekTable;
    if (frame.magic == kPzstdMagic && frame.compressedSize == 8 + 4)
        return SkippableRole::PzstdSize;
    return SkippableRole::Other;
}

SeekTableCheck::SeekTableCheck(FrameSource& file, uint64_t fileSize, const std::optional<SeekFooter>& footer,
                               bool keepEntries)
    : footer_(footer), keepEntries_(keepEntries)
{
    if (footer_)
        reader_.emplace(file, fileSize);
}

void SeekTableCheck::addZstdFrame(const FrameInfo& f, const ScanContext& ctx)
{
    const uint64_t i = zstdFrames_++;
    // More frames than entries: finish() reports the count, entries past the
    // table's end are never read.
    if (!footer_ || i >= footer_->frames)
        return;
    const size_t entrySize = (footer_->descriptor & 0x80) ? 12 : 8;
    const uint64_t pos = footer_->tableFrameOffset + 8 + i * entrySize;
    size_t got = 0;
    const uint8_t* p = reader_->at(pos, entrySize, &got, 64 * 1024);
    if (got < entrySize)
        ctx.failAt(pos, "file ends inside seek table entry " + std::to_string(i));
    const SeekTableInfo::Entry e{readLE32(p), readLE32(p + 4), entrySize == 12 ? readLE32(p + 8) : 0u};
    if (keepEntries_)
        entries_.push_back(e);
    // Entry i ends where the sum of the compressed sizes up to it says, and
    // that must be where zstd frame i ends (skippable frames before it, such
    // as a snapshot's hole markers, count in its entry).
    tableEnd_ += e.compressedSize;
    if (!problem_.empty())
        return;
    const uint64_t frameEnd = f.offset + f.compressedSize;
    const std::string entry = "seek table entry " + std::to_string(i) + " gives ";
    const std::string frame = "frame " + std::to_string(f.index) + " at offset " + std::to_string(f.offset);
    if (tableEnd_ != frameEnd)
        problem_ = entry + std::to_string(e.compressedSize) + " compressed bytes, ending at offset "
                   + std::to_string(tableEnd_) + ", but " + frame + " has " + std::to_string(f.compressedSize)
                   + " and ends at offset " + std::to_string(frameEnd);
    else if (f.contentSize && *f.contentSize != e.decompressedSize)
        problem_ = entry + std::to_string(e.decompressedSize) + " decompressed bytes but " + frame + " declares "
                   + std::to_string(*f.contentSize);
    else if (entrySize == 12 && f.checksum && f.checksumValue != e.checksum)
        problem_ = entry + "checksum " + hex32(e.checksum) + " but " + frame + " carries checksum "
                   + hex32(f.checksumValue);
}

SeekTableInfo SeekTableCheck::finish(const ScanContext& ctx, const FrameInfo& frame)
{
    const SeekFooter& footer = *footer_;
    if (footer.descriptor & 0x7C)
        ctx.failAt(reader_->fileSize() - 5, "seek table descriptor has reserved bits set");
    SeekTableInfo table;
    table.offset = frame.offset;
    table.frames = footer.frames;
    table.checksums = (footer.descriptor & 0x80) != 0;
    // The count is checked first: entries of a table that lists another
    // number of frames describe some other stream.
    if (footer.frames != zstdFrames_) {
        table.consistent = false;
        table.problem = "the seek table lists " + std::to_string(footer.frames) + " frames but the file holds "
                        + std::to_string(zstdFrames_) + " zstd frames";
        return table;
    }
    table.consistent = problem_.empty();
    table.problem = problem_;
    table.entries = std::move(entries_);
    return table;
}

} // namespace cs::frames
