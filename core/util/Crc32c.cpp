#include "core/util/Crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace cs {

namespace {

constexpr uint32_t kPoly = 0x82F63B78u; // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> makeTable()
{
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (c & 1 ? kPoly : 0);
        t[i] = c;
    }
    return t;
}

constexpr auto kTable = makeTable();

uint32_t crcTable(uint32_t c, const uint8_t* p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        c = kTable[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crcHardware(uint32_t c, const uint8_t* p, size_t n)
{
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        c64 = _mm_crc32_u64(c64, v);
        p += 8;
        n -= 8;
    }
    c = uint32_t(c64);
    while (n > 0) {
        c = _mm_crc32_u8(c, *p++);
        --n;
    }
    return c;
}

bool hasHardware()
{
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

} // namespace

uint32_t crc32c(uint32_t crc, const void* data, size_t size)
{
    const auto* p = static_cast<const uint8_t*>(data);
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (hasHardware())
        return ~crcHardware(c, p, size);
#endif
    return ~crcTable(c, p, size);
}

} // namespace cs
