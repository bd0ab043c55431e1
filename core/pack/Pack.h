// The pack: an append-only store of objects (chunks and nodes, see
// ObjectFormat.h) addressed by their logical offset, which stays valid
// forever. Laid out like irmin-pack, in the folder `pack/`:
//
//   control      which generation is current (PackControl.h), replaced atomically
//   N.suffix     objects at logical offsets >= split, at file position offset - split;
//                append-only
//   N.prefix     the live ranges below split that GC copied (generation >= 1)
//   N.mapping    (offset, prefix_offset, length) records locating them (MappingFile.h)
//   append.lock  flock held while appending (and by GC while it swaps generations)
//   gc.lock      flock held by a running GC; leftovers are only removed by whoever holds it
//
// Reads resolve an offset: at or above split from the suffix; below it by
// binary search in the mapping into the prefix; an offset in no live range
// is a clear "collected" error. A reader holds a shared Generation, so a GC
// swapping generations does not disturb it: its open files stay readable
// until it reloads. A read past the end of the generation it holds reloads
// once (a newer generation may have the object).
#pragma once
#include "core/pack/FileLock.h"
#include "core/pack/MappingFile.h"
#include "core/pack/ObjectFormat.h"
#include "core/pack/PackControl.h"
#include "core/util/Error.h"
#include "core/util/File.h"
#include "core/util/Folder.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cs::pack {

// One generation's files open for reading.
struct Generation {
    PackControl control;
    File suffix;
    File prefix;          // not open in generation 0
    MappingFile mapping;  // empty in generation 0
};

struct PackSizes {
    uint64_t generation = 0;
    uint64_t split = 0;
    uint64_t suffixBytes = 0;
    uint64_t prefixBytes = 0;
    uint64_t mappingBytes = 0;
    uint64_t logicalEnd = 0;  // split + suffixBytes
    uint64_t total() const { return suffixBytes + prefixBytes + mappingBytes; }
};

// Control names a generation whose file is gone (after re-reading control:
// a GC swapping generations meanwhile is not this).
class MissingGenerationFile : public Error {
public:
    using Error::Error;
};

class Pack {
public:
    // Opens dir (the pack folder) at the generation control names. Doubt
    // stops it: a missing or unreadable control file, or a generation whose
    // files are gone, throw cs::Error naming the file. With create, makes an
    // empty generation 0 when there is no control file AND no generation
    // file in the folder (a new store). Opening never deletes anything
    // (removeLeftovers is for GC and fsck --repair).
    // The folder's last component must not be a link (the path above it is
    // the user's); every file in it is opened through folder() without
    // following links, so a link planted in the pack is an error, never a
    // way to read, write or delete elsewhere.
    static std::unique_ptr<Pack> open(const std::string& dir, bool create);
    static std::unique_ptr<Pack> open(Folder folder, bool create);

    const std::string& dir() const { return dir_; }
    const Folder& folder() const { return folder_; }
    std::string filePath(const std::string& name) const { return dir_ + "/" + name; }

    std::shared_ptr<const Generation> generation() const;
    // Re-reads control and switches to a newer generation; true when it changed.
    bool reload();
    PackSizes sizes() const;
    uint64_t end() const { return sizes().logicalEnd; }

    // Reading (any thread).
    ObjectHeader readHeader(uint64_t offset) const;
    // The chunk's raw bytes (zstd checksum verified; SHA-256 too when verifyHash).
    std::string readChunk(uint64_t offset, ObjectHeader* header = nullptr, bool verifyHash = false) const;
    // Decodes the chunk straight into out (capacity >= raw size); returns the raw size.
    uint32_t readChunkInto(uint64_t offset, void* out, size_t capacity, ObjectHeader* header = nullptr) const;
    // Raw pack bytes [offset, offset + size): must lie within one live range.
    void readRaw(uint64_t offset, void* buf, size_t size) const;

    // Appending (any thread, any process): takes the append lock, follows a
    // generation swap made by another process, writes at the end. Returns the
    // offset of the first object; the others follow contiguously.
    uint64_t append(const std::string& objectBytes);
    uint64_t append(const void* objectBytes, size_t size);   // one object, written from the caller's buffer
    std::vector<uint64_t> appendAll(const std::vector<std::string>& objects);
    void sync();
    // Drops suffix bytes past logicalEnd (objects torn or never committed
    // before a crash). Only offsets >= split can be dropped.
    void truncateTail(uint64_t logicalEnd);
    // Undoes appends of a failed operation: given the [offset, offset+length)
    // ranges it appended (and never made reachable), truncates the suffix
    // back over those that are at its end now, so objects others appended
    // after them stay. Does nothing while a GC runs (offsets below its split
    // must not be reused). Returns the bytes dropped.
    uint64_t dropOwnTail(std::vector<std::pair<uint64_t, uint64_t>> ranges);

    // For GC: while an AppendGuard lives no append happens in any process.
    class AppendGuard {
    public:
        explicit AppendGuard(Pack& pack);
    private:
        std::unique_lock<std::mutex> mutex_;
        FileLock lock_;
    };
    AppendGuard lockAppends() { return AppendGuard(*this); }
    // The GC lock (non-blocking); unheld when a GC is already running.
    FileLock tryLockGc() const;
    // Names (in dir()) of files of generations other than the current one and
    // of *.tmp files: what an interrupted GC left. Throws, listing nothing,
    // when control or the current generation's files do not check out.
    std::vector<std::string> leftovers() const;
    // Removes leftovers(); the caller holds the GC lock.
    void removeLeftovers();

private:
    Pack() = default;
    std::shared_ptr<Generation> loadGeneration(const PackControl& c) const;
    void refreshWriterLocked();
    struct Where {
        const File* file;
        uint64_t position;
        uint64_t available; // bytes readable from position within the live range (suffix: to file end)
    };
    Where locate(const Generation& g, uint64_t offset) const;
    template <typename Fn> auto withLocated(uint64_t offset, Fn&& fn) const;

    std::string dir_;
    Folder folder_;
    mutable std::mutex genMutex_;
    std::shared_ptr<const Generation> gen_;
    std::mutex appendMutex_;
    File writer_;                 // the current suffix, for appends
    uint64_t writerGeneration_ = ~0ull;
    struct ControlStamp { uint64_t ino = 0, mtimeNs = 0, size = 0; } writerStamp_;
};

} // namespace cs::pack
