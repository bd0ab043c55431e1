#include "core/pack/PackCheck.h"

#include "core/pack/Pack.h"
#include "core/util/Error.h"

#include <algorithm>

namespace cs::pack {

namespace {

std::string at(const std::string& path, uint64_t offset, const std::string& what)
{
    return path + " at offset " + std::to_string(offset) + ": " + what;
}

void checkMapping(const Pack& pack, const Generation& g, std::vector<PackFinding>& out, size_t limit)
{
    const PackControl& c = g.control;
    const std::string path = pack.filePath(mappingFileName(c.generation));
    const uint64_t n = g.mapping.size();
    std::vector<std::pair<uint64_t, uint64_t>> inPrefix; // (prefix_offset, length)
    inPrefix.reserve(size_t(n));
    uint64_t prevEnd = 0, total = 0;
    auto add = [&](uint64_t i, const std::string& what) {
        if (out.size() < limit)
            out.push_back({PackFinding::kNoRoot, at(path, i * kMappingRecordSize, "mapping record " + std::to_string(i) + " " + what)});
    };
    for (uint64_t i = 0; i < n && out.size() < limit; ++i) {
        const MappingRecord r = g.mapping.at(i);
        const std::string rec = "(" + std::to_string(r.offset) + ", " + std::to_string(r.prefixOffset) + ", "
                                + std::to_string(r.length) + ")";
        if (r.length == 0 || r.offset + r.length < r.offset || r.prefixOffset + r.length < r.prefixOffset)
            add(i, rec + " is empty or wraps around");
        else if (i > 0 && r.offset < prevEnd)
            add(i, rec + " is unsorted or overlaps the previous one");
        else if (r.offset + r.length > c.split)
            add(i, rec + " ends at " + std::to_string(r.offset + r.length) + ", past the split "
                       + std::to_string(c.split));
        else if (r.prefixOffset + r.length > c.prefixBytes)
            add(i, rec + " ends at prefix offset " + std::to_string(r.prefixOffset + r.length)
                       + ", past the prefix's " + std::to_string(c.prefixBytes) + " bytes");
        else
            inPrefix.emplace_back(r.prefixOffset, r.length);
        prevEnd = std::max(prevEnd, r.offset + r.length);
        total += r.length;
    }
    if (!out.empty())
        return;
    std::sort(inPrefix.begin(), inPrefix.end());
    for (size_t k = 1; k < inPrefix.size(); ++k)
        if (inPrefix[k].first < inPrefix[k - 1].first + inPrefix[k - 1].second) {
            out.push_back({PackFinding::kNoRoot,
                           at(path, 0, "two mapping records share the prefix bytes at prefix offset "
                                           + std::to_string(inPrefix[k].first))});
            return;
        }
    if (total != c.prefixBytes)
        out.push_back({PackFinding::kNoRoot, at(path, 0, "the mapping records cover " + std::to_string(total)
                                                             + " prefix bytes, the control file says "
                                                             + std::to_string(c.prefixBytes))});
}

} // namespace

std::vector<PackFinding> checkPackExplains(const Pack& pack, uint64_t end, const std::vector<uint64_t>& roots,
                                           size_t limit)
{
    std::vector<PackFinding> out;
    const auto g = pack.generation();
    checkMapping(pack, *g, out, limit);
    const uint64_t split = g->control.split;
    const std::string suffix = pack.filePath(suffixFileName(g->control.generation));
    // The end of what this generation holds, whichever is smaller: a root
    // past the suffix's end is not in the pack even when `end` was read
    // before a truncation.
    const uint64_t held = std::min(end, split + g->suffix.size());
    for (size_t i = 0; i < roots.size() && out.size() < limit; ++i) {
        const uint64_t r = roots[i];
        if (r >= held) {
            out.push_back({i, at(suffix, r >= split ? r - split : 0,
                                 "root at pack offset " + std::to_string(r) + " is past the end of the pack ("
                                     + std::to_string(held) + ")")});
            continue;
        }
        try {
            // Resolves below the split through the mapping (an offset in no
            // record is an error) and checks the whole object lies in its
            // live range (prefix) or before the suffix's end.
            const ObjectHeader h = pack.readHeader(r);
            if (r >= split && r + h.totalBytes > held)
                out.push_back({i, at(suffix, r - split, "root at pack offset " + std::to_string(r) + " ends at "
                                                            + std::to_string(r + h.totalBytes)
                                                            + ", past the end of the pack (" + std::to_string(held)
                                                            + ")")});
        } catch (const Error& e) {
            out.push_back({i, e.what()});
        }
    }
    return out;
}

} // namespace cs::pack
