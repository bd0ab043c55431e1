// What is inside an entry's blob: its format found from the bytes, and the
// members of the archive it holds, read in one streaming pass.
//
// What @actions/cache stores is `tar --posix` through `zstd -T0 --long=30`
// (or `zstd -T0` for "zstd-without-long", gzip for old clients); BuildKit's
// type=gha cache stores image layers (tar + gzip or zstd) and JSON
// manifests. The format is read from the bytes: the zstd or gzip magic, a
// tar header libarchive recognises, a JSON document; anything else is
// "opaque", named as such with the reason, never an error.
//
// zstd is decoded by ZstdStream (window limit from the memory budget: Debian
// 12's libarchive 3.6.2 cannot decode --long=30 frames); libarchive reads
// the tar (pax, ustar, GNU) and gzip from our stream through its read
// callback, so no temporary copy is made. Members go to a callback as they
// pass: memory is the decoder's window plus libarchive's buffers, whatever
// the member count. Errors (cs::Error) name the entry, the blob offset and
// the offset in the tar stream.
#pragma once
#include "core/entries/EntryBlob.h"
#include "core/entries/ZstdStream.h"
#include "core/util/Sha256.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace cs {
class Job;
}

namespace cs::entries {

enum class BlobFormat { TarZstd, TarGzip, Tar, Json, Opaque };
const char* blobFormatName(BlobFormat f); // "tar+zstd", "tar+gzip", "tar", "json", "opaque"

enum class MemberType { File, Folder, Symlink, Hardlink, Other };
const char* memberTypeName(MemberType t); // "file", "dir", "symlink", "hardlink", "other"

struct Member {
    std::string path;          // the stored bytes (maybe not UTF-8), without "./" and a trailing "/"
    MemberType type = MemberType::File;
    uint64_t size = 0;         // bytes of a regular file (0 for the others)
    uint32_t mode = 0;         // permission bits, 07777
    int64_t mtime = 0;         // seconds since the epoch
    std::string linkTarget;    // symlinks and hard links
    std::optional<Digest> sha256; // regular files, when ContentsOptions::hashMembers
};

struct ContentsOptions {
    uint64_t memoryBudget = kDefaultMemoryBudget; // caps the zstd window
    bool hashMembers = false;                      // SHA-256 of each regular file (for a diff)
    // Called once, just before the first member, with the format the
    // members come from (a streamed listing writes the format first).
    std::function<void(BlobFormat)> onFormat;
};

struct ContentsSummary {
    BlobFormat format = BlobFormat::Opaque;
    std::string detail;         // why opaque ("a zstd stream holding no tar archive"), else ""
    uint64_t members = 0;       // every member, folders included
    uint64_t files = 0;         // members that are not folders
    uint64_t bytes = 0;         // sum of the regular files' sizes
    uint64_t blobBytes = 0;     // stored (compressed) bytes read
    uint64_t decodedBytes = 0;  // bytes of the tar stream (= blobBytes for a plain tar)
    uint64_t window = 0;        // largest zstd window met (0 when not zstd)
};

using MemberSink = std::function<void(const Member&)>;

// Reads the blob once, front to back, handing every member to onMember in
// archive order. Progress over the blob's stored bytes and cancel through job.
ContentsSummary readContents(const EntryBlob& blob, const ContentsOptions& options, Job& job,
                             const MemberSink& onMember);

// The same over any stream of stored bytes (size for progress, 0 when
// unknown); name starts every error. For benchmarks and tests of files.
ContentsSummary readContents(ByteStream& stored, uint64_t size, const std::string& name,
                             const ContentsOptions& options, Job& job, const MemberSink& onMember);

} // namespace cs::entries
