// libFuzzer target: the frame walkers. The input is a file of (supposedly)
// concatenated zstd and skippable frames, read by core/frames (scanFrames
// with every block, and the streamed JSON writer) and by the snapshot
// decoder's header pass. Bad input must be a cs::Error, never a crash, a
// hang or an allocation that grows with a declared size.
#include "FuzzSupport.h"

#include "core/frames/FrameLayout.h"
#include "core/frames/FrameLayoutJson.h"
#include "core/jobs/Job.h"
#include "core/snapshot/SnapshotInternal.h"
#include "core/util/File.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = fuzz::scratch() + "/input.zst";
    fuzz::writeBytes(path, data, size);
    cs::FrameScanOptions options;
    options.blocks = true;
    fuzz::expectErrorOrSuccess([&] {
        cs::Job job("frames");
        const cs::FrameLayout layout = cs::scanFrames(path, options, job);
        uint64_t sum = 0;
        for (const auto& f : layout.frames)
            sum += f.compressedSize;
        if (sum != layout.summary.compressedSize || sum != size)
            std::abort();  // a layout that was accepted covers the file exactly
    });
    fuzz::expectErrorOrSuccess([&] {
        cs::Job job("frames");
        size_t bytes = 0;
        cs::writeFrameLayoutJson(path, options, job, [&](std::string_view s) { bytes += s.size(); });
    });
    fuzz::expectErrorOrSuccess([&] {
        const cs::File file = cs::File::openRead(path);
        cs::snapshot::FrameHeaderPass pass(file);
        uint64_t end = 0;
        while (auto f = pass.next())
            end = f->offset + f->compressedSize;
        if (end != size)
            std::abort();
    });
    return 0;
}
