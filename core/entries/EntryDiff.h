// What changed between two entries (two versions of one key, today's key
// against yesterday's): members added, removed, or changed in type, size,
// mode, link target or content. Content is compared by a SHA-256 of each
// regular file, computed while its archive streams (EntryContents.h); the
// two archives are read at the same time, one thread each. mtime is not
// compared (every build touches it).
//
// bytes_added - bytes_removed = bytes of B - bytes of A: added members count
// whole in bytes_added, removed ones in bytes_removed, and a changed member
// its growth in bytes_added or its shrinking in bytes_removed.
//
// Memory: one record per member of each archive (path, size, mode, link,
// digest), the one cost a diff of unsorted archives cannot avoid.
#pragma once
#include "core/entries/EntryContents.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cs::entries {

struct DiffMember {
    std::string path;
    MemberType type = MemberType::File;
    uint64_t size = 0;
};

struct ChangedMember {
    std::string path;
    uint64_t sizeA = 0, sizeB = 0;
    std::string what;       // "content", "size", "mode", "type", "link target" (comma-separated)
};

struct EntryDiff {
    std::vector<DiffMember> added, removed;    // by path
    std::vector<ChangedMember> changed;        // by path
    uint64_t bytesAdded = 0, bytesRemoved = 0;
    ContentsSummary a, b;
};

// Reads both blobs (hashing every file). Progress over both blobs' bytes.
EntryDiff diffEntries(const EntryBlob& a, const EntryBlob& b, const ContentsOptions& options, Job& job);

} // namespace cs::entries
