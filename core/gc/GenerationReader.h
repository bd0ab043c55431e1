// Reads logical pack offsets from one fixed generation (the one the GC
// started from), whatever swaps happen meanwhile: offsets >= split from the
// suffix, below it through the mapping into the prefix.
//
// readObject() serves the walk, which reads in decreasing offset order, and
// reads each live byte once together with the copy (PrefixWriter.h):
//   - a header outside the current window is read with a small probe (4 KiB
//     from the object's start), which tells the object's size;
//   - a small object (at most 16 KiB: nodes, the small chunks of a pack of
//     tiny objects) then gets a read-behind window that ends at the
//     object's end, so the objects below it (the next ones the walk visits)
//     cost no system call and their bytes are handed to the copy from
//     memory. The window's size adapts between 64 KiB and windowBytes: it
//     doubles while the objects served from it fill at least a quarter of
//     it and halves otherwise (the window below a node reaches into large
//     chunks or dead bytes, which are never served);
//   - a larger object's body is not read here: readObject gives no bytes
//     for it and the copy moves it inside the kernel (copySpan).
// A read just past the window's end (a forward scan of dead ranges, a dry
// run counting dead objects) reads ahead instead.
// copySpan() serves the copy of what is not in the window: a span may cross
// old live ranges (a new range straddling the old split, or two old records
// that became adjacent), so it is copied piece by piece.
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
    // Copies [offset, offset + size) into out at outPosition (core/util/CopyRange.h).
    void copySpan(uint64_t offset, uint64_t size, File& out, uint64_t outPosition) const;

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
    enum class Kind { Probe, Behind, Ahead };
    const uint8_t* window(const Where& w, uint64_t need);
    void fill(const Where& w, uint64_t start, uint64_t end, Kind kind);
    bool holds(const Where& w, uint64_t size) const;

    std::shared_ptr<const pack::Generation> g_;
    uint64_t suffixSize_ = 0;
    const File* winFile_ = nullptr;
    uint64_t winStart_ = 0;
    uint64_t windowBytes_;
    uint64_t ahead_;             // a read this close past the window's end reads ahead
    uint64_t behindBytes_;       // the next read-behind window's size (adapts, see above)
    Kind winKind_ = Kind::Probe;
    uint64_t winUsed_ = 0;       // bytes of the objects served whole from the window
    std::unique_ptr<uint8_t[]> win_;
    uint64_t winCapacity_ = 0;
    uint64_t winSize_ = 0;       // bytes of win_ read
    std::vector<uint8_t> big_;
    mutable pack::MappingRecord last_{}; // the record locate() found last
    mutable bool haveLast_ = false;
};

} // namespace cs::gc
