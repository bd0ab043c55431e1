// libFuzzer target: the seek table parser (zstd seekable format). The input is
// the tail of a file whose head is three valid empty zstd frames, so the
// fuzzer spends its time on the table frame, its footer and the entries that
// are checked against those frames.
#include "FuzzSupport.h"

#include "core/frames/FrameLayout.h"
#include "core/jobs/Job.h"

#include <string>

namespace {
// Stock `zstd -c --no-check` of an empty input: magic, header, one empty raw block.
const uint8_t kEmptyFrame[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string bytes;
    for (int i = 0; i < 3; ++i)
        bytes.append(reinterpret_cast<const char*>(kEmptyFrame), sizeof kEmptyFrame);
    bytes.append(reinterpret_cast<const char*>(data), size);
    const std::string path = fuzz::scratch() + "/seekable.zst";
    fuzz::writeBytes(path, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    fuzz::expectErrorOrSuccess([&] {
        cs::Job job("frames");
        const cs::FrameLayout layout = cs::scanFrames(path, {}, job);
        if (layout.seekTable) {
            const auto& t = *layout.seekTable;
            // Entries are kept only for a table that lists every zstd frame.
            if (!t.entries.empty() && t.entries.size() != layout.summary.zstdFrames)
                std::abort();
            if (t.consistent != t.problem.empty())
                std::abort();
        }
    });
    return 0;
}
