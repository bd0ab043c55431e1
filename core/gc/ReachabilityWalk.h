// The reverse-offset reachability walk. Generic over how an object is read,
// so tests run it on synthetic DAGs and the GC on the pack.
//
// Invariant: every child is at a smaller offset than its parent. Popping the
// largest offset from a max-heap (a radix heap, MonotoneQueue.h) therefore visits offsets in strictly
// decreasing order, a popped offset is never pushed again, and only the
// frontier (offsets pushed but not popped) is held in memory. Equal offsets
// pushed by several parents sit together at the top and are skipped by
// comparing with the last popped one.
//
// Each visited object [offset, offset + totalBytes) is live; consecutive
// live objects are collapsed on the fly, so ranges come out in decreasing
// offset order, never adjacent and never overlapping.
#pragma once
#include "core/gc/Gc.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace cs::gc {

class ReachabilityWalk {
public:
    // Reads the object at offset: returns its total size in bytes and fills
    // children (cleared by the caller) with the offsets it references.
    using ReadObject = std::function<uint64_t(uint64_t offset, std::vector<uint64_t>& children)>;
    using EmitRange = std::function<void(const PackRange& range)>;
    // fraction of [0, split) passed; called every few thousand objects. May throw (cancel).
    using Progress = std::function<void(double fraction)>;

    struct Result {
        uint64_t objectsVisited = 0;
        uint64_t liveBytes = 0;
        uint64_t ranges = 0;
        uint64_t largestFrontier = 0;
    };

    // Walks from roots (offsets >= split are ignored: they stay in the suffix).
    // Throws cs::Error when an edge does not point backwards or objects overlap.
    static Result run(const std::vector<uint64_t>& roots, uint64_t split, const ReadObject& read,
                      const EmitRange& emit, const Progress& progress = {});
};

} // namespace cs::gc
