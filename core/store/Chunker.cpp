#include "core/store/Chunker.h"

#include <array>
#include <bit>

namespace cs::store {

namespace {

// 256 fixed pseudo-random 64-bit values (splitmix64 of the byte): the cut
// points, hence the dedup of stored stores, depend on them; never change.
const std::array<uint64_t, 256>& gearTable()
{
    static const std::array<uint64_t, 256> table = [] {
        std::array<uint64_t, 256> t{};
        uint64_t x = 0x63616368656b6579ull; // "cachekey"
        for (auto& v : t) {
            x += 0x9E3779B97F4A7C15ull;
            uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            v = z ^ (z >> 31);
        }
        return t;
    }();
    return table;
}

// A mask of `bits` bits taken from the high half of the hash (the bits that
// depend on the last 64 bytes), spread evenly.
uint64_t spreadMask(int bits)
{
    uint64_t m = 0;
    for (int i = 0; i < bits; ++i)
        m |= 1ull << (63 - (i * 40 / bits));
    return m;
}

} // namespace

Chunker::Chunker(ChunkerParams params) : p_(params)
{
    const int avgBits = int(std::bit_width(p_.avgSize)) - 1;
    maskSmall_ = spreadMask(avgBits + 2);
    maskLarge_ = spreadMask(avgBits - 2);
}

size_t Chunker::feed(const uint8_t* data, size_t n, bool& cut)
{
    cut = false;
    const auto& gear = gearTable();
    size_t i = 0;
    // Below the minimum there is no cut: skip without hashing.
    if (pos_ < p_.minSize) {
        const size_t skip = std::min(n, p_.minSize - pos_);
        i += skip;
        pos_ += skip;
        if (pos_ < p_.minSize)
            return n;
        hash_ = 0;
    }
    uint64_t h = hash_;
    while (i < n) {
        const size_t limit = pos_ < p_.avgSize ? std::min(n, i + (p_.avgSize - pos_)) : std::min(n, i + (p_.maxSize - pos_));
        const uint64_t mask = pos_ < p_.avgSize ? maskSmall_ : maskLarge_;
        const size_t start = i;
        for (; i < limit; ++i) {
            h = (h << 1) + gear[data[i]];
            if ((h & mask) == 0) {
                ++i;
                pos_ += i - start;
                cut = true;
                pos_ = 0;
                hash_ = 0;
                return i;
            }
        }
        pos_ += i - start;
        if (pos_ >= p_.maxSize) {
            cut = true;
            pos_ = 0;
            hash_ = 0;
            return i;
        }
    }
    hash_ = h;
    return n;
}

} // namespace cs::store
