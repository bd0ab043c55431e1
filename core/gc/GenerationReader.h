// Reads logical pack offsets from one fixed generation (the one the GC
// started from), whatever swaps happen meanwhile: offsets >= split from the
// suffix, below it through the mapping into the prefix.
//
// readObject() serves the walk, which reads in decreasing offset order: it
// keeps a read-behind window (windowBytes, 1 MiB by default, ending a
// sixteenth of that past the requested
// position), so the headers of neighbouring objects cost no system call; a
// read past the window's end (a forward scan of dead ranges) reads ahead.
// readSpan() serves the copy of what is not in the window: a span may cross old live ranges (a new range
// straddling the old split, or two old records that became adjacent), so it
// is read piece by piece.
#pragma once
#include "core/gc/Gc.h"
#include "core/pack/Pack.h"

#include <memory>
#include <vector>

namespace cs::gc {

class GenerationReader {
public:
    explicit GenerationReader(std::shared_ptr<const pack::Generation> g, uint64_t windowBytes = 1u << 20);

    const pack::Generation& generation() const { return *g_; }
    // Total object size; fills children with child offsets. When bytes is
    // given, *bytes points at the whole object when it is in the read window
    // (valid until the next read), else is nullptr.
    uint64_t readObject(uint64_t offset, std::vector<uint64_t>& children, const uint8_t** bytes = nullptr);
    void readSpan(uint64_t offset, void* buf, uint64_t size) const;

    // The ranges below split present in this generation (old mapping records
    // and [old split, split)), in increasing order.
    std::vector<PackRange> presentRanges(uint64_t split) const;

    // Where offset lives in this generation's files: the file, the position
    // in it, and how many bytes from there belong to the same old live range.
    struct Where {
        const File* file;
        uint64_t position;
        uint64_t available;
    };
    Where locate(uint64_t offset) const;

private:
    const uint8_t* window(const Where& w, uint64_t need);

    std::shared_ptr<const pack::Generation> g_;
    uint64_t suffixSize_ = 0;
    const File* winFile_ = nullptr;
    uint64_t winStart_ = 0;
    uint64_t windowBytes_;
    uint64_t ahead_;             // a backward window ends this far past the requested position
    std::vector<uint8_t> win_;
    std::vector<uint8_t> big_;
    mutable pack::MappingRecord last_{}; // the record locate() found last
    mutable bool haveLast_ = false;
};

} // namespace cs::gc
