// The size index's own text encodings of a folder listing (SizeIndex.h):
// names joined by NUL (strays, links) and parts as "index:size ...". Shared
// by the refresh that writes them and the listing that reads them back.
#pragma once
#include "core/actions-cache/ActionsBackend.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace cs::actions::sizeindex {

inline std::string joinNames(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names) {
        out += n;
        out += '\0';
    }
    return out;
}

inline std::vector<std::string> splitNames(const std::string& blob)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i < blob.size(); ++i)
        if (blob[i] == '\0') {
            out.push_back(blob.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

inline std::string encodeParts(const std::vector<PartObject>& parts)
{
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty())
            out += ' ';
        out += std::to_string(p.index) + ":" + std::to_string(p.size);
    }
    return out;
}

inline std::vector<PartObject> decodeParts(const std::string& text)
{
    std::vector<PartObject> out;
    const char* p = text.c_str();
    while (*p) {
        char* end = nullptr;
        PartObject part;
        part.index = std::strtoull(p, &end, 10);
        if (*end != ':')
            break;
        part.size = std::strtoull(end + 1, &end, 10);
        out.push_back(part);
        p = end;
        while (*p == ' ')
            ++p;
    }
    return out;
}

} // namespace cs::actions::sizeindex
