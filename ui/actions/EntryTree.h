// An entry's archive as a tree of folders and members for the Contents tab
// and the treemap, built on a worker thread from the core's members
// (core/entries) and handed to the GUI thread whole. Plain C++ (no Qt
// types: ui/jobs/Background.h). Node 0 is the root; a folder's bytes and
// files are the totals below it, children sorted largest first.
#pragma once
#include "core/entries/EntryContents.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ui {

struct EntryTreeNode {
    std::string name;          // one path component, as stored (escape before showing)
    int parent = -1;
    int row = 0;               // position among the parent's children
    std::vector<int> children;
    cs::entries::MemberType type = cs::entries::MemberType::Folder;
    uint64_t bytes = 0;        // a file's size, or a folder's total below it
    uint64_t files = 0;        // 1 for a member that is not a folder, else the count below
};

struct EntryTree {
    std::string entryId;
    std::vector<EntryTreeNode> nodes;   // [0] = the root
    cs::entries::ContentsSummary summary;
    std::string path(int node) const;   // "tree/src/main.c"
};
using EntryTreePtr = std::shared_ptr<const EntryTree>;

class EntryTreeBuilder {
public:
    explicit EntryTreeBuilder(std::string entryId);
    void add(const cs::entries::Member& m);
    EntryTreePtr finish(const cs::entries::ContentsSummary& summary);

private:
    int nodeFor(const std::string& path, bool folder, cs::entries::MemberType type);
    EntryTree tree_;
    std::unordered_map<std::string, int> byPath_;
};

} // namespace ui
