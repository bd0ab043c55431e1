// libFuzzer target: the mapping reader (pack/N.mapping, 24-byte records of
// little-endian u64 offset, prefix_offset, length). Opening checks the size
// and the order; lookups of offsets around every record must return a record
// that holds the offset, or nothing.
#include "FuzzSupport.h"

#include "core/pack/MappingFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = fuzz::scratch() + "/0.mapping";
    fuzz::writeBytes(path, data, size);
    fuzz::expectErrorOrSuccess([&] {
        const auto m = cs::pack::MappingFile::open(path);
        if (m.size() != size / cs::pack::kMappingRecordSize)
            std::abort();
        const auto check = [&](uint64_t offset) {
            const auto r = m.find(offset);
            if (r && !(r->offset <= offset && offset - r->offset < r->length))
                std::abort();
        };
        for (uint64_t i = 0; i < m.size() && i < 64; ++i) {
            const auto r = m.at(i);
            check(r.offset);
            check(r.offset - 1);
            check(r.offset + r.length - 1);
            check(r.offset + r.length);
            if (!m.find(r.offset))
                std::abort();  // every record's first byte is found
        }
        check(0);
        check(~uint64_t(0));
        if (m.all().size() != m.size())
            std::abort();
    });
    return 0;
}
