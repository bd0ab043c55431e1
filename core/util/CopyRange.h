// Copies a byte range from one open file to another at given positions,
// inside the kernel where it can: copy_file_range(2) moves page-cache pages
// (or shares extents, or asks a network server to copy) without bringing the
// bytes into this process, which halves the copies of a read + write. Where
// the kernel cannot (EXDEV: the files are on different file systems;
// EINVAL/ENOSYS/EOPNOTSUPP: a file system or kernel without it; a copy that
// returns 0 before the source's end, as some pseudo file systems do), the
// rest goes through pread + pwrite.
//
// Durability is the caller's: like pwrite, this only puts the bytes in the
// destination's page cache (or its file system's equivalent); fsync the
// destination as after a write.
#pragma once
#include "core/util/File.h"

#include <cstdint>

namespace cs {

enum class CopyWith {
    Kernel,     // copy_file_range, falling back to ReadWrite when unsupported
    ReadWrite,  // pread + pwrite through a buffer only
};

// Copies [fromPos, fromPos + size) of from to [toPos, toPos + size) of to.
// Throws cs::Error naming the file and offset when the source ends early or
// a read or write fails (ENOSPC included). The file offsets of both
// descriptors are not used (positions are explicit).
void copyRange(const File& from, uint64_t fromPos, File& to, uint64_t toPos, uint64_t size,
               CopyWith with = CopyWith::Kernel);

} // namespace cs
