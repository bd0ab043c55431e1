// scanFrames(): one pass from the start of the file, frame by frame, reading
// headers only (see FrameReading.h for the format and the pieces).
#include "core/frames/FrameReading.h"

#include "core/jobs/Job.h"
#include "core/util/File.h"

namespace cs {

namespace {
constexpr uint64_t kTickEveryFrames = 256;
}

FrameLayout scanFrames(const std::string& path, const FrameScanOptions& options, Job& job)
{
    FrameLayout layout;
    layout.path = path;
    const File file = File::openRead(path);
    const uint64_t fileSize = file.size();
    frames::WindowReader reader(file, fileSize);
    frames::ScanContext ctx{path, 0};
    const auto footer = frames::readSeekFooter(reader);
    const auto tick = [&](uint64_t offset) {
        job.checkCancel();
        job.setStepProgress(offset, fileSize);
    };

    uint64_t offset = 0;
    size_t readAhead = 64;
    while (offset < fileSize) {
        FrameInfo frame;
        frame.index = layout.frames.size();
        frame.offset = offset;
        ctx.frameIndex = frame.index;
        uint32_t blockSizeMax = 0;
        frames::readFrameHeader(reader, ctx, frame, &blockSizeMax, readAhead);
        if (frame.kind == FrameKind::Zstd) {
            frames::walkBlocks(reader, ctx, frame, blockSizeMax, options.blocks, tick);
        } else {
            frame.role = frames::skippableRole(frame, footer, fileSize);
            if (frame.role == SkippableRole::SeekTable)
                layout.seekTable = frames::readSeekTable(reader, ctx, frame, *footer, layout.frames);
        }
        offset += frame.compressedSize;
        // After a small frame the next header is close: read a larger window
        // that covers the next few frames in one system call.
        readAhead = frame.compressedSize < 4096 ? 64 * 1024 : 64;
        layout.frames.push_back(std::move(frame));
        if (layout.frames.size() % kTickEveryFrames == 0)
            tick(offset);
    }
    layout.summary = frames::summarize(layout.frames, layout.seekTable, fileSize);
    job.setStepProgress(fileSize, fileSize);
    return layout;
}

const char* frameKindName(FrameKind k)
{
    switch (k) {
    case FrameKind::Zstd: return "zstd";
    case FrameKind::Skippable: return "skippable";
    }
    return "unknown";
}

const char* skippableRoleName(SkippableRole r)
{
    switch (r) {
    case SkippableRole::None: return "";
    case SkippableRole::SeekTable: return "seek_table";
    case SkippableRole::PzstdSize: return "pzstd_size";
    case SkippableRole::Other: return "other";
    }
    return "unknown";
}

const char* blockTypeName(BlockType t)
{
    switch (t) {
    case BlockType::Raw: return "raw";
    case BlockType::Rle: return "rle";
    case BlockType::Compressed: return "compressed";
    }
    return "unknown";
}

} // namespace cs
