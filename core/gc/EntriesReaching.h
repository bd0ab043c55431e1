// Reverse lookups for the reachability view: which object holds a byte of
// the pack, and which live entries reach an object.
//
// Both read the store as it is now (a fresh Pack and catalog connection per
// call), so they follow a generation swap; both may run on any thread.
//
// entriesReaching() relies on the pack's invariant that every child lies at a
// smaller offset than its parent: an entry whose root is below the object
// cannot reach it, and inside a tree only children at or above the object's
// offset can lead to it. So it asks the catalog only for merged entries with
// root_offset >= offset (indexed), descends only into such children, and
// remembers per node whether its subtree holds the object (shared subtrees
// are read once).
#pragma once
#include "core/jobs/Job.h"
#include "core/pack/ObjectFormat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cs::pack { class Pack; }

namespace cs::gc {

// The object whose bytes hold `offset`, found by reading headers forward from
// rangeStart, the start of a live or dead range (objects lie back to back in
// a range). Throws cs::Error when offset is not inside an object read that
// way (a damaged pack, or a range that was collected meanwhile).
pack::ObjectHeader objectHolding(const pack::Pack& pack, uint64_t rangeStart, uint64_t offset, Job* job = nullptr);

struct ReachingEntry {
    int64_t id = 0;
    std::string key;
    std::string version;
    std::string scope;
    uint64_t rootOffset = 0;
    int depth = 0;                    // 0: the object is the entry's root node
};

struct EntriesReaching {
    uint64_t objectOffset = 0;
    std::vector<ReachingEntry> entries;   // the first `limit` by entry id
    uint64_t total = 0;                   // all merged entries that reach the object
    uint64_t candidates = 0;              // merged entries with root_offset >= objectOffset
    uint64_t nodesRead = 0;
    uint64_t unreadable = 0;              // trees that could not be read (collected, damaged)
};

// Merged entries of the store at storeDir whose root subtree contains the
// object at objectOffset (the offset of its header, see objectHolding()).
EntriesReaching entriesReaching(const std::string& storeDir, uint64_t objectOffset, size_t limit, Job& job);

} // namespace cs::gc
