// What the pack must explain before anything is deleted: the one check that
// GC runs before it writes or deletes a file and that fsck reports.
//
//  - every mapping record of the current generation is non-empty, sorted by
//    offset, does not overlap the previous one, lies wholly below the split,
//    and its [prefix_offset, prefix_offset + length) lies inside the prefix
//    without overlapping another record's (they tile the prefix: their
//    lengths add up to prefix_bytes);
//  - every root (of a live entry) is below `end`, and resolves to an object
//    that lies wholly inside the pack: below the split through a mapping
//    record into the prefix, at or above it in the suffix.
//
// A control file whose split was moved (a valid checksum does not make it
// right), a truncated suffix or a record crossing the split make some root
// or record fail here, so a GC refuses instead of collecting what the roots
// no longer reach. Each finding names the file and the byte offset in it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cs::pack {

class Pack;

struct PackFinding {
    static constexpr size_t kNoRoot = size_t(-1);
    size_t root = kNoRoot;   // index into the roots given, or kNoRoot for a mapping record
    std::string message;     // one sentence: "<file> at offset N: ..."
};

// Checks the pack's current generation; `end` is the logical end the roots
// were read against (GC: its split; fsck: the pack's end). Stops after
// `limit` findings.
std::vector<PackFinding> checkPackExplains(const Pack& pack, uint64_t end, const std::vector<uint64_t>& roots,
                                           size_t limit = 100);

} // namespace cs::pack
