// libFuzzer target: the pack object reader. The input is generation 0's
// suffix (pack/0.suffix) of a pack whose control file is valid; the target
// walks it object by object as fsck and the GC do (headers, node children,
// chunk frames with their zstd checksum and SHA-256).
#include "FuzzSupport.h"

#include "core/pack/Pack.h"

#include <memory>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string dir = [] {
        const std::string d = fuzz::scratch() + "/pack";
        cs::pack::Pack::open(d, true);  // control of generation 0 and an empty 0.suffix
        return d;
    }();
    fuzz::writeBytes(dir + "/" + cs::pack::suffixFileName(0), data, size);
    fuzz::expectErrorOrSuccess([&] {
        const auto pack = cs::pack::Pack::open(dir, false);
        uint64_t offset = 0;
        for (int n = 0; n < 256 && offset < pack->end(); ++n) {
            const cs::pack::ObjectHeader h = pack->readHeader(offset);
            if (h.totalBytes == 0 || h.offset != offset)
                std::abort();
            if (h.kind == cs::pack::ObjectKind::Chunk) {
                const std::string raw = pack->readChunk(offset, nullptr, true);
                if (raw.size() != h.rawSize)
                    std::abort();
            } else {
                for (const auto& c : h.children)
                    if (c.offset >= offset)
                        std::abort();  // edges point backwards (parseHeaderPayload's promise)
            }
            offset += h.totalBytes;
        }
    });
    return 0;
}
