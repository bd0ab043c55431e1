// The live and dead ranges of a pack (from a GC dry run or a run with
// collectRanges) prepared for drawing: sorted ranges with running byte
// totals, so the live or dead bytes inside any span of offsets cost two
// binary searches. Built once off the GUI thread, shared read-only.
#pragma once
#include "core/gc/Gc.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ui {

struct PackStripData {
    std::vector<cs::gc::PackRange> live;   // increasing, non-overlapping
    std::vector<cs::gc::PackRange> dead;
    uint64_t split = 0;                    // ranges lie below it
    uint64_t end = 0;                      // logical end of the pack (>= split)
    uint64_t liveBytes = 0;
    uint64_t deadBytes = 0;

    static std::shared_ptr<const PackStripData> make(std::vector<cs::gc::PackRange> live,
                                                     std::vector<cs::gc::PackRange> dead, uint64_t split,
                                                     uint64_t end);

    // Bytes of live (dead) ranges inside [from, to).
    uint64_t liveIn(uint64_t from, uint64_t to) const { return bytesIn(live, liveCum_, from, to); }
    uint64_t deadIn(uint64_t from, uint64_t to) const { return bytesIn(dead, deadCum_, from, to); }

    struct Hit {
        bool live = false;
        cs::gc::PackRange range;
        bool operator==(const Hit&) const = default;
    };
    // The range holding offset, else the first range overlapping [from, to).
    std::optional<Hit> rangeNear(uint64_t offset, uint64_t from, uint64_t to) const;

private:
    static uint64_t bytesBelow(const std::vector<cs::gc::PackRange>& r, const std::vector<uint64_t>& cum, uint64_t x);
    static uint64_t bytesIn(const std::vector<cs::gc::PackRange>& r, const std::vector<uint64_t>& cum, uint64_t from,
                            uint64_t to)
    {
        return to <= from ? 0 : bytesBelow(r, cum, to) - bytesBelow(r, cum, from);
    }
    std::vector<uint64_t> liveCum_;   // liveCum_[i] = bytes of live[0..i)
    std::vector<uint64_t> deadCum_;
};

} // namespace ui
