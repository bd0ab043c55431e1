#include "core/util/Xxh64.h"

#include <cstring>

namespace cs {

namespace {

constexpr uint64_t P1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t P2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t P3 = 0x165667B19E3779F9ULL;
constexpr uint64_t P4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t P5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t read64(const unsigned char* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;   // little-endian hosts only (the project's targets)
}

inline uint32_t read32(const unsigned char* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline uint64_t round(uint64_t acc, uint64_t input)
{
    acc += input * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}

inline uint64_t mergeRound(uint64_t acc, uint64_t lane)
{
    acc ^= round(0, lane);
    return acc * P1 + P4;
}

} // namespace

void Xxh64::reset(uint64_t seed)
{
    seed_ = seed;
    lane_[0] = seed + P1 + P2;
    lane_[1] = seed + P2;
    lane_[2] = seed;
    lane_[3] = seed - P1;
    total_ = 0;
    tailSize_ = 0;
}

void Xxh64::update(const void* data, size_t n)
{
    const auto* p = static_cast<const unsigned char*>(data);
    total_ += n;
    if (tailSize_ > 0) {
        const size_t take = n < 32 - tailSize_ ? n : 32 - tailSize_;
        std::memcpy(tail_ + tailSize_, p, take);
        tailSize_ += take;
        p += take;
        n -= take;
        if (tailSize_ < 32)
            return;
        for (int i = 0; i < 4; ++i)
            lane_[i] = round(lane_[i], read64(tail_ + 8 * i));
        tailSize_ = 0;
    }
    uint64_t v0 = lane_[0], v1 = lane_[1], v2 = lane_[2], v3 = lane_[3];
    for (; n >= 32; p += 32, n -= 32) {
        v0 = round(v0, read64(p));
        v1 = round(v1, read64(p + 8));
        v2 = round(v2, read64(p + 16));
        v3 = round(v3, read64(p + 24));
    }
    lane_[0] = v0, lane_[1] = v1, lane_[2] = v2, lane_[3] = v3;
    std::memcpy(tail_, p, n);
    tailSize_ = n;
}

uint64_t Xxh64::digest() const
{
    uint64_t h;
    if (total_ >= 32) {
        h = rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18);
        for (int i = 0; i < 4; ++i)
            h = mergeRound(h, lane_[i]);
    } else {
        h = seed_ + P5;
    }
    h += total_;
    const unsigned char* p = tail_;
    size_t n = tailSize_;
    for (; n >= 8; p += 8, n -= 8) {
        h ^= round(0, read64(p));
        h = rotl(h, 27) * P1 + P4;
    }
    if (n >= 4) {
        h ^= uint64_t(read32(p)) * P1;
        h = rotl(h, 23) * P2 + P3;
        p += 4;
        n -= 4;
    }
    for (; n > 0; ++p, --n) {
        h ^= uint64_t(*p) * P5;
        h = rotl(h, 11) * P1;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t Xxh64::of(const void* data, size_t n, uint64_t seed)
{
    Xxh64 x(seed);
    x.update(data, n);
    return x.digest();
}

} // namespace cs
