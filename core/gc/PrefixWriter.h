// Writes (N+1).prefix during the reachability walk, so the old pack is read
// once and the copy overlaps the walk: small objects from the bytes the walk
// has just read, larger ones copied inside the kernel (copy_file_range, see
// core/util/CopyRange.h) from the old generation, never through this
// process's memory.
//
// The walk visits live objects in DECREASING offset order, and a live
// range's prefix offset in an increasing-order layout would depend on the
// total live bytes, known only at the end. The mapping does not need the
// prefix in offset order (a read binary-searches the record by offset and
// adds its prefix_offset), so the prefix is laid out block by block:
//   - a block is filled from its END backwards: each object goes just below
//     the previous one, so inside the block every live range is contiguous
//     and in forward byte order. An object given in memory is copied into
//     the block's buffer; one that is not leaves a hole there, noted with
//     the old offset to copy it from when the block is written;
//   - when an object does not fit, the completed ranges are written at the
//     prefix's end (blocks come in walk order: the block of the highest
//     offsets first), and the part of the range still growing moves to the
//     buffer's end;
//   - a single range longer than the buffer stops being buffered: the part
//     already buffered stays at the buffer's end, the objects below it are
//     only walked, and when the range completes its unbuffered part is
//     copied from the old generation (inside the kernel, block by block),
//     followed by the buffered part.
// Every range is therefore one contiguous piece of the prefix: mapping
// records stay one per live range (fully collapsed), sorted by offset for
// lookups, with prefix offsets in walk order. Each record goes to the
// MappingBuilder as soon as its prefix offset is known, again in decreasing
// offset order.
//
// Written blocks are handed to the kernel's writeback at once
// (sync_file_range WRITE), so the final fsync has little left to wait for.
#pragma once
#include "core/util/File.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace cs::gc {

class MappingBuilder;

class PrefixWriter {
public:
    // Copies old-generation bytes [offset, offset + size) into out at position at.
    using CopySpan = std::function<void(uint64_t offset, uint64_t size, File& out, uint64_t at)>;
    // Called after every write to the prefix (progress, cancel, kill points).
    using Written = std::function<void(uint64_t bytesWritten)>;

    PrefixWriter(File& out, MappingBuilder& mapping, size_t blockBytes, CopySpan copy, Written written);

    // The live object [offset, offset + size): offsets strictly decrease from
    // call to call. bytes points at its contents when the caller has them in
    // memory, else nullptr (they are copied through CopySpan).
    void add(uint64_t offset, uint64_t size, const uint8_t* bytes);
    // Writes what is buffered; returns the prefix size. The caller fsyncs.
    uint64_t finish();

    uint64_t bytesWritten() const { return cursor_; }
    uint64_t ranges() const { return ranges_; }

private:
    struct Buffered {
        uint64_t offset, length, at; // at: position in buf_
    };
    void closeRange();
    void makeRoom(uint64_t offset, uint64_t size);
    void writeOut(uint64_t from);
    void wrote(uint64_t bytes);
    void copyLongRange();

    File& out_;
    MappingBuilder& mapping_;
    CopySpan copy_;
    Written written_;
    std::vector<uint8_t> buf_;
    uint64_t pos_;                 // buffered bytes are buf_[pos_, size)
    std::vector<Buffered> done_;   // completed ranges in the buffer, in walk order
    std::vector<Buffered> holes_;  // objects to copy from the old generation, decreasing at
    bool open_ = false;            // a range is growing
    bool long_ = false;            // ... and is longer than the buffer
    uint64_t rangeStart_ = 0, rangeEnd_ = 0;
    uint64_t rangeAt_ = 0;         // where the growing range's bytes end in buf_
    uint64_t longFrom_ = 0;        // a long range: its bytes from here to rangeEnd_ are buffered
    uint64_t cursor_ = 0;          // prefix bytes written
    uint64_t ranges_ = 0;
    uint64_t lastOffset_ = UINT64_MAX;
};

} // namespace cs::gc
