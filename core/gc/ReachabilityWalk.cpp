#include "core/gc/ReachabilityWalk.h"

#include "core/gc/MonotoneQueue.h"
#include "core/util/Error.h"

namespace cs::gc {

ReachabilityWalk::Result ReachabilityWalk::run(const std::vector<uint64_t>& roots, uint64_t split,
                                               const ReadObject& read, const EmitRange& emit,
                                               const Progress& progress)
{
    Result r;
    MonotoneQueue frontier; // a max-heap that relies on pops never increasing
    for (uint64_t root : roots)
        if (root < split)
            frontier.push(root);
    r.largestFrontier = frontier.size();

    std::vector<uint64_t> children;
    bool havePending = false;
    PackRange pending; // the collapsed range being grown downwards
    bool haveLast = false;
    uint64_t last = 0;
    uint64_t sinceProgress = 0;

    while (!frontier.empty()) {
        const uint64_t offset = frontier.top();
        frontier.pop();
        if (haveLast && offset == last)
            continue; // shared child pushed by several parents
        haveLast = true;
        last = offset;

        children.clear();
        const uint64_t size = read(offset, children);
        if (size == 0)
            throw Error("pack object at offset " + std::to_string(offset) + " has size 0");
        ++r.objectsVisited;
        r.liveBytes += size;
        for (uint64_t c : children) {
            if (c >= offset)
                throw Error("pack object at offset " + std::to_string(offset) + " references offset "
                            + std::to_string(c) + ", which is not smaller; the pack is damaged");
            frontier.push(c);
        }
        if (frontier.size() > r.largestFrontier)
            r.largestFrontier = frontier.size();

        const uint64_t end = offset + size;
        if (havePending) {
            if (end > pending.offset)
                throw Error("pack object at offset " + std::to_string(offset) + " (" + std::to_string(size)
                            + " bytes) overlaps the object at offset " + std::to_string(pending.offset));
            if (end == pending.offset) {
                pending.offset = offset;
                pending.length += size;
            } else {
                emit(pending);
                ++r.ranges;
                pending = {offset, size};
            }
        } else {
            if (end > split)
                throw Error("pack object at offset " + std::to_string(offset) + " (" + std::to_string(size)
                            + " bytes) crosses the split point " + std::to_string(split));
            pending = {offset, size};
            havePending = true;
        }
        if (progress && ++sinceProgress >= 4096) {
            sinceProgress = 0;
            progress(split ? double(split - offset) / double(split) : 1.0);
        }
    }
    if (havePending) {
        emit(pending);
        ++r.ranges;
    }
    if (progress)
        progress(1.0);
    return r;
}

} // namespace cs::gc
