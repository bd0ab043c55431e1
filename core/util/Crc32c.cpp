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
// The crc32 instruction has a latency of 3 cycles and a throughput of 1 per
// cycle, so one stream of it runs at a third of what the core can do. Long
// inputs are cut into three adjacent lanes hashed side by side; the lanes are
// joined by "shifting" a lane's CRC over the bytes of the lanes after it, a
// linear map on the 32 CRC bits applied through four 256-entry tables (the
// method of Mark Adler's crc32c.c). kLong and kShort are the lane lengths.
constexpr size_t kLong = 8192;
constexpr size_t kShort = 256;

// mat (32 columns) times vec over GF(2).
uint32_t matrixTimes(const uint32_t* mat, uint32_t vec)
{
    uint32_t sum = 0;
    for (; vec; vec >>= 1, ++mat)
        if (vec & 1)
            sum ^= *mat;
    return sum;
}

void matrixSquare(uint32_t* square, const uint32_t* mat)
{
    for (int n = 0; n < 32; ++n)
        square[n] = matrixTimes(mat, mat[n]);
}

// The operator that appends len zero bytes to a CRC register (len > 1).
void zerosOperator(uint32_t* even, size_t len)
{
    uint32_t odd[32];
    odd[0] = kPoly; // one zero bit
    uint32_t row = 1;
    for (int n = 1; n < 32; ++n) {
        odd[n] = row;
        row <<= 1;
    }
    matrixSquare(even, odd); // two zero bits
    matrixSquare(odd, even); // four
    // The first square below puts the operator for one zero byte in even.
    do {
        matrixSquare(even, odd);
        len >>= 1;
        if (len == 0)
            return;
        matrixSquare(odd, even);
        len >>= 1;
    } while (len);
    std::memcpy(even, odd, sizeof odd);
}

using ShiftTable = std::array<std::array<uint32_t, 256>, 4>;

ShiftTable makeShiftTable(size_t len)
{
    uint32_t op[32];
    zerosOperator(op, len);
    ShiftTable t{};
    for (uint32_t n = 0; n < 256; ++n)
        for (int k = 0; k < 4; ++k)
            t[size_t(k)][n] = matrixTimes(op, n << (8 * k));
    return t;
}

uint32_t shift(const ShiftTable& t, uint32_t crc)
{
    return t[0][crc & 0xFF] ^ t[1][(crc >> 8) & 0xFF] ^ t[2][(crc >> 16) & 0xFF] ^ t[3][crc >> 24];
}

__attribute__((target("sse4.2"))) uint64_t lane(uint64_t c, const uint8_t* p, size_t n)
{
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
    }
    for (; n > 0; --n)
        c = _mm_crc32_u8(uint32_t(c), *p++);
    return c;
}

// Three lanes of `len` bytes each (a multiple of 8) from p, joined.
__attribute__((target("sse4.2"))) uint64_t threeLanes(uint64_t c0, const uint8_t* p, size_t len, const ShiftTable& t)
{
    uint64_t c1 = 0, c2 = 0;
    const uint8_t* end = p + len;
    for (; p < end; p += 8) {
        uint64_t v0, v1, v2;
        std::memcpy(&v0, p, 8);
        std::memcpy(&v1, p + len, 8);
        std::memcpy(&v2, p + 2 * len, 8);
        c0 = _mm_crc32_u64(c0, v0);
        c1 = _mm_crc32_u64(c1, v1);
        c2 = _mm_crc32_u64(c2, v2);
    }
    c0 = shift(t, uint32_t(c0)) ^ c1;
    return shift(t, uint32_t(c0)) ^ c2;
}

uint32_t crcHardware(uint32_t c, const uint8_t* p, size_t n)
{
    static const ShiftTable longShift = makeShiftTable(kLong);
    static const ShiftTable shortShift = makeShiftTable(kShort);
    uint64_t c64 = c;
    for (; n >= 3 * kLong; n -= 3 * kLong, p += 3 * kLong)
        c64 = threeLanes(c64, p, kLong, longShift);
    for (; n >= 3 * kShort; n -= 3 * kShort, p += 3 * kShort)
        c64 = threeLanes(c64, p, kShort, shortShift);
    return uint32_t(lane(c64, p, n));
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
#if defined(__x86_64__)
    if (hasHardware())
        return ~crcHardware(~crc, static_cast<const uint8_t*>(data), size);
#endif
    return crc32cPortable(crc, data, size);
}

uint32_t crc32cPortable(uint32_t crc, const void* data, size_t size)
{
    return ~crcTable(~crc, static_cast<const uint8_t*>(data), size);
}

} // namespace cs
