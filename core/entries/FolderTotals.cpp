#include "core/entries/FolderTotals.h"

#include <algorithm>

namespace cs::entries {

void FolderTotals::add(const Member& m)
{
    const bool folder = m.type == MemberType::Folder;
    unsigned depth = 0;
    size_t at = 0;
    // Each folder above the member, then the member itself when it is one.
    while (depth < maxDepth_) {
        const size_t slash = m.path.find('/', at);
        if (slash == std::string::npos && !folder)
            break;
        const size_t end = slash == std::string::npos ? m.path.size() : slash;
        if (end == 0 && slash == std::string::npos)
            break; // an empty path names no folder
        ++depth;
        Totals& t = folders_[m.path.substr(0, end)];
        t.depth = depth;
        if (!folder) {
            ++t.files;
            t.bytes += m.size;
        }
        if (slash == std::string::npos)
            break;
        at = slash + 1;
    }
}

std::vector<FolderTotal> FolderTotals::byPath() const
{
    std::vector<FolderTotal> out;
    out.reserve(folders_.size());
    for (const auto& [path, t] : folders_)
        out.push_back({path, t.depth, t.files, t.bytes});
    std::sort(out.begin(), out.end(), [](const FolderTotal& a, const FolderTotal& b) { return a.path < b.path; });
    return out;
}

std::vector<FolderTotal> FolderTotals::largestFirst() const
{
    auto out = byPath();
    std::stable_sort(out.begin(), out.end(), [](const FolderTotal& a, const FolderTotal& b) { return a.bytes > b.bytes; });
    return out;
}

} // namespace cs::entries
