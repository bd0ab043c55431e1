#include "ui/gc/PackStripData.h"

#include <algorithm>

namespace ui {

using cs::gc::PackRange;

std::shared_ptr<const PackStripData> PackStripData::make(std::vector<PackRange> live, std::vector<PackRange> dead,
                                                         uint64_t split, uint64_t end)
{
    auto d = std::make_shared<PackStripData>();
    d->live = std::move(live);
    d->dead = std::move(dead);
    d->split = split;
    auto cumulate = [](const std::vector<PackRange>& r, std::vector<uint64_t>& cum) {
        cum.resize(r.size() + 1);
        cum[0] = 0;
        for (size_t i = 0; i < r.size(); ++i)
            cum[i + 1] = cum[i] + r[i].length;
        return cum.back();
    };
    d->liveBytes = cumulate(d->live, d->liveCum_);
    d->deadBytes = cumulate(d->dead, d->deadCum_);
    uint64_t top = split;
    if (!d->live.empty())
        top = std::max(top, d->live.back().end());
    if (!d->dead.empty())
        top = std::max(top, d->dead.back().end());
    d->end = std::max(end, top);
    return d;
}

uint64_t PackStripData::bytesBelow(const std::vector<PackRange>& r, const std::vector<uint64_t>& cum, uint64_t x)
{
    // First range starting at or after x; the one before may straddle x.
    const auto it = std::lower_bound(r.begin(), r.end(), x, [](const PackRange& a, uint64_t v) { return a.offset < v; });
    const size_t i = size_t(it - r.begin());
    uint64_t bytes = cum[i];
    if (i > 0 && r[i - 1].end() > x)
        bytes -= r[i - 1].end() - x;
    return bytes;
}

std::optional<PackStripData::Hit> PackStripData::rangeNear(uint64_t offset, uint64_t from, uint64_t to) const
{
    auto holding = [&](const std::vector<PackRange>& r) -> const PackRange* {
        auto it = std::upper_bound(r.begin(), r.end(), offset, [](uint64_t v, const PackRange& a) { return v < a.offset; });
        if (it == r.begin())
            return nullptr;
        --it;
        return offset < it->end() ? &*it : nullptr;
    };
    if (const PackRange* p = holding(live))
        return Hit{true, *p};
    if (const PackRange* p = holding(dead))
        return Hit{false, *p};
    // Nothing under the exact offset (a tiny range elsewhere in the pixel): the first overlapping one.
    auto firstOverlap = [&](const std::vector<PackRange>& r) -> const PackRange* {
        auto it = std::upper_bound(r.begin(), r.end(), from, [](uint64_t v, const PackRange& a) { return v < a.offset; });
        if (it != r.begin() && std::prev(it)->end() > from)
            --it;
        return it != r.end() && it->offset < to ? &*it : nullptr;
    };
    const PackRange* l = firstOverlap(live);
    const PackRange* d = firstOverlap(dead);
    if (l && (!d || l->offset <= d->offset))
        return Hit{true, *l};
    if (d)
        return Hit{false, *d};
    return std::nullopt;
}

} // namespace ui
