#include "ui/actions/EntryTree.h"

#include <algorithm>
#include <functional>

namespace ui {

using cs::entries::MemberType;

std::string EntryTree::path(int node) const
{
    std::string out;
    for (int n = node; n > 0; n = nodes[size_t(n)].parent)
        out = out.empty() ? nodes[size_t(n)].name : nodes[size_t(n)].name + "/" + out;
    return out;
}

EntryTreeBuilder::EntryTreeBuilder(std::string entryId)
{
    tree_.entryId = std::move(entryId);
    tree_.nodes.push_back({});
}

int EntryTreeBuilder::nodeFor(const std::string& path, bool folder, MemberType type)
{
    if (path.empty())
        return 0;
    if (const auto it = byPath_.find(path); it != byPath_.end()) {
        if (!folder)
            tree_.nodes[size_t(it->second)].type = type;
        return it->second;
    }
    const size_t slash = path.rfind('/');
    const int parent = slash == std::string::npos ? 0 : nodeFor(path.substr(0, slash), true, MemberType::Folder);
    EntryTreeNode n;
    n.name = slash == std::string::npos ? path : path.substr(slash + 1);
    n.parent = parent;
    n.type = folder ? MemberType::Folder : type;
    const int index = int(tree_.nodes.size());
    tree_.nodes.push_back(std::move(n));
    tree_.nodes[size_t(parent)].children.push_back(index);
    byPath_.emplace(path, index);
    return index;
}

void EntryTreeBuilder::add(const cs::entries::Member& m)
{
    const bool folder = m.type == MemberType::Folder;
    const int n = nodeFor(m.path, folder, m.type);
    if (folder)
        return;
    EntryTreeNode& node = tree_.nodes[size_t(n)];
    node.bytes = m.size;
    node.files = 1;
    for (int p = node.parent; p >= 0; p = tree_.nodes[size_t(p)].parent) {
        tree_.nodes[size_t(p)].bytes += m.size;
        tree_.nodes[size_t(p)].files += 1;
    }
}

EntryTreePtr EntryTreeBuilder::finish(const cs::entries::ContentsSummary& summary)
{
    tree_.summary = summary;
    auto& nodes = tree_.nodes;
    for (auto& n : nodes) {
        std::stable_sort(n.children.begin(), n.children.end(),
                         [&nodes](int a, int b) { return nodes[size_t(a)].bytes > nodes[size_t(b)].bytes; });
        for (size_t i = 0; i < n.children.size(); ++i)
            nodes[size_t(n.children[i])].row = int(i);
    }
    byPath_.clear();
    return std::make_shared<const EntryTree>(std::move(tree_));
}

} // namespace ui
