// Bytes and files per folder of an archive, to any depth, added up as the
// members pass (EntryContents.h). A member counts in every folder above
// it: "a/b/c.txt" adds to "a" and "a/b". Folders are the path's own
// components, so "../../.npm/x" counts in "..", "../.." and "../../.npm".
// Memory: one record per folder within maxDepth, never one per member.
#pragma once
#include "core/entries/EntryContents.h"

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace cs::entries {

struct FolderTotal {
    std::string path;
    unsigned depth = 0;     // "a" is 1, "a/b" is 2
    uint64_t files = 0;     // members below that are not folders
    uint64_t bytes = 0;     // their regular files' bytes
};

class FolderTotals {
public:
    explicit FolderTotals(unsigned maxDepth = std::numeric_limits<unsigned>::max()) : maxDepth_(maxDepth) {}
    void add(const Member& m);
    // Largest bytes first (then by path); the ones within maxDepth.
    std::vector<FolderTotal> largestFirst() const;
    // By path, a parent before its children.
    std::vector<FolderTotal> byPath() const;

private:
    struct Totals {
        uint64_t files = 0, bytes = 0;
        unsigned depth = 0;
    };
    unsigned maxDepth_;
    std::unordered_map<std::string, Totals> folders_;
};

} // namespace cs::entries
