// scanFrames(): one pass from the start of the file, frame by frame, reading
// headers only (see FrameReading.h for the format and the pieces).
#include "core/frames/FrameReading.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/InputFile.h"

namespace cs {

namespace {
constexpr uint64_t kTickEveryFrames = 256;
}

namespace {

// The one pass both entry points share; keepEntries keeps the seek table's
// entries (scanFrames hands them to the GUI), the streaming scan does not.
FrameScanTotals scan(FrameSource& file, const std::string& path, const FrameScanOptions& options, Job& job,
                     bool keepEntries, const std::function<void(FrameInfo&)>& onFrame)
{
    FrameScanTotals totals;
    const uint64_t fileSize = file.size();
    frames::WindowReader reader(file, fileSize);
    frames::ScanContext ctx{path, 0};
    const auto footer = frames::readSeekFooter(reader);
    frames::SeekTableCheck tableCheck(file, fileSize, footer, keepEntries);
    frames::FrameTally tally;
    const auto tick = [&](uint64_t offset) {
        job.checkCancel();
        job.setStepProgress(offset, fileSize);
    };

    uint64_t offset = 0;
    uint64_t index = 0;
    size_t readAhead = 64;
    FrameInfo frame;
    while (offset < fileSize) {
        // One FrameInfo reused: its block list keeps its capacity, so a
        // frame costs no allocation once the largest one was seen.
        std::vector<BlockInfo> blockList = std::move(frame.blockList);
        blockList.clear();
        frame = FrameInfo{};
        frame.blockList = std::move(blockList);
        frame.index = index;
        frame.offset = offset;
        ctx.frameIndex = index;
        uint32_t blockSizeMax = 0;
        frames::readFrameHeader(reader, ctx, frame, &blockSizeMax, readAhead);
        if (frame.kind == FrameKind::Zstd) {
            frames::walkBlocks(reader, ctx, frame, blockSizeMax, options.blocks, tick);
            tableCheck.addZstdFrame(frame, ctx);
        } else {
            frame.role = frames::skippableRole(frame, footer, fileSize);
            if (frame.role == SkippableRole::SeekTable)
                totals.seekTable = tableCheck.finish(ctx, frame);
        }
        offset += frame.compressedSize;
        // After a small frame the next header is close: read a larger window
        // that covers the next few frames in one system call.
        readAhead = frame.compressedSize < 4096 ? 64 * 1024 : 64;
        tally.add(frame);
        onFrame(frame);
        ++index;
        if (index % kTickEveryFrames == 0)
            tick(offset);
    }
    totals.summary = tally.finish(totals.seekTable, fileSize);
    job.setStepProgress(fileSize, fileSize);
    return totals;
}

// Headers are read at their offsets and the seek table from the tail: a
// pipe, FIFO or terminal has neither, and is refused without waiting for a
// writer (InputFile.h).
FrameScanTotals scanPath(const std::string& path, const FrameScanOptions& options, Job& job, bool keepEntries,
                         const std::function<void(FrameInfo&)>& onFrame)
{
    const File file = openSeekableInput(path, "frames reads headers at their offsets");
    frames::FileFrameSource source(file);
    return scan(source, path, options, job, keepEntries, onFrame);
}

} // namespace

namespace {

FrameLayout layoutOf(const std::string& name, const std::function<FrameScanTotals(const std::function<void(FrameInfo&)>&)>& run)
{
    FrameLayout layout;
    layout.path = name;
    auto totals = run([&](FrameInfo& f) { layout.frames.push_back(std::move(f)); });
    layout.seekTable = std::move(totals.seekTable);
    layout.summary = totals.summary;
    return layout;
}

} // namespace

FrameLayout scanFrames(const std::string& path, const FrameScanOptions& options, Job& job)
{
    return layoutOf(path, [&](const auto& onFrame) { return scanPath(path, options, job, true, onFrame); });
}

FrameLayout scanFrames(FrameSource& source, const std::string& name, const FrameScanOptions& options, Job& job)
{
    return layoutOf(name, [&](const auto& onFrame) { return scan(source, name, options, job, true, onFrame); });
}

FrameScanTotals scanFramesStreaming(const std::string& path, const FrameScanOptions& options, Job& job,
                                    const std::function<void(const FrameInfo&)>& onFrame)
{
    return scanPath(path, options, job, false, [&](FrameInfo& f) { onFrame(f); });
}

FrameScanTotals scanFramesStreaming(FrameSource& source, const std::string& name, const FrameScanOptions& options,
                                    Job& job, const std::function<void(const FrameInfo&)>& onFrame)
{
    return scan(source, name, options, job, false, [&](FrameInfo& f) { onFrame(f); });
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
