// Content-defined chunking (FastCDC style: gear rolling hash, normalized
// chunking with a harder mask before the average size and an easier one
// after). A cut depends only on the bytes of the current chunk, so shared
// byte runs in two entries produce the same chunks after the first cut
// inside the shared run, whatever precedes it. Streaming: feed bytes as they
// arrive, in any slicing; cuts are identical to feeding them at once.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cs::store {

struct ChunkerParams {
    size_t minSize = 256u << 10;
    size_t avgSize = 1u << 20;
    size_t maxSize = 4u << 20;
};

class Chunker {
public:
    explicit Chunker(ChunkerParams params = {});

    // Scans data; returns how many bytes belong to the current chunk. When
    // cut is set, the chunk ends after those bytes (and the chunker starts a
    // new one); otherwise all n bytes were taken and the chunk continues.
    size_t feed(const uint8_t* data, size_t n, bool& cut);
    size_t currentSize() const { return pos_; }
    const ChunkerParams& params() const { return p_; }

private:
    ChunkerParams p_;
    uint64_t maskSmall_;   // used below avgSize: more bits, cuts rarer
    uint64_t maskLarge_;   // used from avgSize on: fewer bits, cuts likelier
    size_t pos_ = 0;       // bytes in the current chunk
    uint64_t hash_ = 0;
};

} // namespace cs::store
