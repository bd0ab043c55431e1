// Fixed-width little-endian integers: the one codec for every on-disk field
// (pack objects, mapping records, zstd frame and block headers, skippable
// frames, seek tables, hole markers). Reads take any byte pointer, need no
// alignment and compile to one load on a little-endian host; appends grow a
// std::string, writes fill a caller's buffer of at least the width.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace cs {

namespace coding_detail {
template <typename T>
inline T readLE(const void* p)
{
    if constexpr (std::endian::native == std::endian::little) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    } else {
        const auto* b = static_cast<const uint8_t*>(p);
        T v = 0;
        for (size_t i = sizeof(T); i-- > 0;)
            v = T(v << 8) | b[i];
        return v;
    }
}
template <typename T>
inline void writeLE(void* out, T v)
{
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, &v, sizeof v);
    } else {
        auto* b = static_cast<uint8_t*>(out);
        for (size_t i = 0; i < sizeof(T); ++i)
            b[i] = uint8_t(v >> (8 * i));
    }
}
template <typename T>
inline void appendLE(std::string& s, T v)
{
    char b[sizeof(T)];
    writeLE(b, v);
    s.append(b, sizeof b);
}
} // namespace coding_detail

inline uint16_t readLE16(const void* p) { return coding_detail::readLE<uint16_t>(p); }
inline uint32_t readLE32(const void* p) { return coding_detail::readLE<uint32_t>(p); }
inline uint64_t readLE64(const void* p) { return coding_detail::readLE<uint64_t>(p); }
// Three bytes, as a zstd block header is.
inline uint32_t readLE24(const void* p)
{
    const auto* b = static_cast<const uint8_t*>(p);
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16;
}

inline void writeLE16(void* out, uint16_t v) { coding_detail::writeLE(out, v); }
inline void writeLE32(void* out, uint32_t v) { coding_detail::writeLE(out, v); }
inline void writeLE64(void* out, uint64_t v) { coding_detail::writeLE(out, v); }

inline void appendLE16(std::string& s, uint16_t v) { coding_detail::appendLE(s, v); }
inline void appendLE32(std::string& s, uint32_t v) { coding_detail::appendLE(s, v); }
inline void appendLE64(std::string& s, uint64_t v) { coding_detail::appendLE(s, v); }

} // namespace cs
