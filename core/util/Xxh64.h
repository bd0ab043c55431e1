// XXH64 (Yann Collet's xxHash, 64-bit, seed 0 unless given), streaming: the
// hash of the bytes fed in any slicing equals the hash of them at once. It is
// the hash whose low 32 bits a zstd frame's checksum carries, so stock
// `zstd --check` checks this code (tst_util_xxh64). Used where a fingerprint
// of every decoded byte must cost little next to decoding them (the server
// report's repetition pass): 32 bytes per step in four independent lanes,
// against a byte at a time for FNV.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cs {

class Xxh64 {
public:
    explicit Xxh64(uint64_t seed = 0) { reset(seed); }
    void reset(uint64_t seed = 0);
    void update(const void* data, size_t n);
    uint64_t digest() const;
    static uint64_t of(const void* data, size_t n, uint64_t seed = 0);

private:
    uint64_t lane_[4];
    uint64_t seed_;
    uint64_t total_;
    unsigned char tail_[32];   // a stripe not yet whole
    size_t tailSize_;
};

} // namespace cs
