#define ZSTD_STATIC_LINKING_ONLY
#include "core/pack/Pack.h"

#include "core/util/Error.h"

#include <sys/stat.h>
#include <cerrno>
#include <algorithm>
#include <zstd.h>

#include <cstring>
#include <memory>


namespace cs::pack {

namespace {

struct Stamp { uint64_t ino = 0, mtimeNs = 0, size = 0; };

Stamp statStamp(const Folder& folder, const char* name)
{
    struct stat st {};
    if (::fstatat(folder.fd(), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        failErrno(folder.pathOf(name), "cannot stat");
    return {uint64_t(st.st_ino), uint64_t(st.st_mtim.tv_sec) * 1000000000ull + uint64_t(st.st_mtim.tv_nsec),
            uint64_t(st.st_size)};
}

bool isGenerationFile(const std::string& name, uint64_t& gen)
{
    const auto dot = name.find('.');
    if (dot == std::string::npos || dot == 0)
        return false;
    const std::string ext = name.substr(dot + 1);
    if (ext != "suffix" && ext != "prefix" && ext != "mapping")
        return false;
    for (size_t i = 0; i < dot; ++i)
        if (name[i] < '0' || name[i] > '9')
            return false;
    gen = std::stoull(name.substr(0, dot));
    return true;
}

} // namespace

std::unique_ptr<Pack> Pack::open(const std::string& dir, bool create)
{
    std::string path = dir;
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    const auto slash = path.rfind('/');
    const std::string parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        fail(dir, "does not name a pack folder");
    Folder above = create ? Folder::openOrCreate(parent) : Folder::open(parent);
    if (create)
        return open(above.subOrCreate(name), true);
    auto folder = above.trySub(name);
    if (!folder)
        fail(dir, "not a cachescope pack (the folder does not exist)");
    return open(std::move(*folder), false);
}

std::unique_ptr<Pack> Pack::open(Folder folder, bool create)
{
    std::unique_ptr<Pack> p(new Pack());
    p->dir_ = folder.path();
    p->folder_ = std::move(folder);
    const Folder& f = p->folder_;
    if (f.kindOf(kControlFileName) == Folder::Kind::Missing) {
        // Without control nobody knows which generation is current: guessing
        // (or starting an empty one) would lose every merged entry.
        std::vector<std::string> files;
        for (const auto& e : f.list()) {
            uint64_t gen = 0;
            if (isGenerationFile(e.name, gen))
                files.push_back(e.name);
        }
        if (!create || !files.empty())
            fail(p->filePath(kControlFileName),
                 std::string("is missing") + (files.empty() ? "" : " while the folder holds " + files.front()
                                                                    + (files.size() > 1 ? " and more" : ""))
                     + "; refusing to guess which generation is current, nothing was changed: "
                       "store fsck cannot check the store without it and fsck --repair does not rebuild it; "
                       "restore pack/control from a backup");
        f.openFile(suffixFileName(0), O_WRONLY | O_CREAT | O_APPEND).sync();
        PackControl{}.writeAtomic(f);
    }
    // Opening never deletes: leftovers of an interrupted GC (files of other
    // generations, *.tmp) are removed by the next GC or by fsck --repair
    // (removeLeftovers), after they checked the control file.
    p->reload();
    return p;
}

std::shared_ptr<Generation> Pack::loadGeneration(const PackControl& c) const
{
    auto g = std::make_shared<Generation>();
    g->control = c;
    const bool hasPrefix = c.generation > 0 && (c.prefixBytes > 0 || c.mappingRecords > 0);
    std::vector<std::string> names{suffixFileName(c.generation)};
    if (hasPrefix) {
        names.push_back(prefixFileName(c.generation));
        names.push_back(mappingFileName(c.generation));
    }
    for (const auto& n : names) {
        if (folder_.kindOf(n) == Folder::Kind::Missing)
            throw MissingGenerationFile(filePath(kControlFileName) + ": names generation " + std::to_string(c.generation)
                                        + " but " + filePath(n) + " is missing; refusing to open the pack, nothing "
                                          "was changed (store fsck reports it; no repair can bring the objects back: "
                                          "restore the file from a backup)");
    }
    g->suffix = folder_.openRead(names[0]);
    if (hasPrefix) {
        g->prefix = folder_.openRead(names[1]);
        if (g->prefix.size() != c.prefixBytes)
            fail(g->prefix.path(), "prefix has " + std::to_string(g->prefix.size()) + " bytes, the control file says "
                                       + std::to_string(c.prefixBytes));
        g->mapping = MappingFile::open(folder_.openRead(names[2]), c.mappingRecords);
    }
    return g;
}

bool Pack::reload()
{
    PackControl c = PackControl::read(folder_);
    for (int attempt = 0;; ++attempt) {
        {
            std::lock_guard lock(genMutex_);
            if (gen_ && gen_->control == c)
                return false;
        }
        try {
            auto g = loadGeneration(c);
            std::lock_guard lock(genMutex_);
            gen_ = std::move(g);
            return true;
        } catch (const MissingGenerationFile&) {
            // A GC may have swapped generations and removed these files
            // between our read of control and the opens: the new control
            // names files that exist. The same control twice is real damage.
            const PackControl again = PackControl::read(folder_);
            if (again == c || attempt >= 16)
                throw;
            c = again;
        }
    }
}

std::shared_ptr<const Generation> Pack::generation() const
{
    std::lock_guard lock(genMutex_);
    return gen_;
}

PackSizes Pack::sizes() const
{
    auto g = generation();
    PackSizes s;
    s.generation = g->control.generation;
    s.split = g->control.split;
    s.suffixBytes = g->suffix.size();
    s.prefixBytes = g->control.prefixBytes;
    s.mappingBytes = g->control.mappingRecords * kMappingRecordSize;
    s.logicalEnd = s.split + s.suffixBytes;
    return s;
}

Pack::Where Pack::locate(const Generation& g, uint64_t offset) const
{
    if (offset >= g.control.split) {
        const uint64_t pos = offset - g.control.split;
        const uint64_t size = g.suffix.size();
        return {&g.suffix, pos, pos < size ? size - pos : 0};
    }
    const auto r = g.mapping.find(offset);
    if (!r)
        failAt(filePath(mappingFileName(g.control.generation)), offset,
               "object was collected by GC (no live range holds this offset)");
    return {&g.prefix, r->prefixOffset + (offset - r->offset), r->offset + r->length - offset};
}

template <typename Fn> auto Pack::withLocated(uint64_t offset, Fn&& fn) const
{
    auto g = generation();
    Where w = locate(*g, offset);
    if (w.available == 0 && offset >= g->control.split) {
        // Past the end of the generation we hold: a newer one may have it.
        const_cast<Pack*>(this)->reload();
        g = generation();
        w = locate(*g, offset);
        if (w.available == 0)
            failAt(g->suffix.path(), offset - g->control.split,
                   "pack offset " + std::to_string(offset) + " is past the end of the pack");
    }
    return fn(*g, w);
}

ObjectHeader Pack::readHeader(uint64_t offset) const
{
    return withLocated(offset, [&](const Generation& g, const Where& w) {
        uint8_t start[kHeaderFrameOverhead];
        if (w.available < kHeaderFrameOverhead)
            failAt(w.file->path(), w.position, "pack object at offset " + std::to_string(offset) + " is truncated");
        w.file->readAt(start, sizeof start, w.position);
        const uint32_t payloadSize = parseHeaderFrameStart(start, w.file->path(), w.position);
        if (w.available < kHeaderFrameOverhead + uint64_t(payloadSize))
            failAt(w.file->path(), w.position, "pack object at offset " + std::to_string(offset) + " is truncated");
        std::vector<uint8_t> payload(payloadSize);
        w.file->readAt(payload.data(), payload.size(), w.position + kHeaderFrameOverhead);
        ObjectHeader h = parseHeaderPayload(payload.data(), payloadSize, w.file->path(), w.position, offset);
        h.offset = offset;
        if (h.totalBytes > w.available)
            failAt(w.file->path(), w.position, "pack object at offset " + std::to_string(offset) + " claims "
                                                   + std::to_string(h.totalBytes) + " bytes, more than remain");
        (void)g;
        return h;
    });
}

uint32_t Pack::readChunkInto(uint64_t offset, void* out, size_t capacity, ObjectHeader* headerOut) const
{
    const ObjectHeader h = readHeader(offset);
    if (h.kind != ObjectKind::Chunk)
        throw Error(dir_ + ": object at offset " + std::to_string(offset) + " is a node, expected a chunk");
    if (h.rawSize > capacity)
        throw Error(dir_ + ": chunk at offset " + std::to_string(offset) + " holds " + std::to_string(h.rawSize)
                    + " bytes, more than expected");
    // One grow-only buffer per thread: a fresh allocation per chunk is an
    // mmap, zero-fill and munmap of up to a few MiB (the store sets a low
    // mmap threshold to bound RSS), which cost more than the decoding.
    thread_local std::vector<char> frameBuffer;
    if (frameBuffer.size() < h.frameSize)
        frameBuffer.resize(h.frameSize);
    const char* frame = frameBuffer.data();
    withLocated(offset, [&](const Generation&, const Where& w) {
        w.file->readAt(frameBuffer.data(), h.frameSize, w.position + h.headerBytes);
        return 0;
    });
    const unsigned long long declared = ZSTD_getFrameContentSize(frame, h.frameSize);
    if (declared != h.rawSize)
        throw Error(dir_ + ": chunk at offset " + std::to_string(offset)
                    + ": its zstd frame does not declare the header's raw size");
    // Per thread, freed when the thread ends (see compressChunkFrame).
    thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx)
        throw Error(dir_ + ": cannot create a zstd decompression context (out of memory)");
    const size_t n = ZSTD_decompressDCtx(dctx.get(), out, h.rawSize, frame, h.frameSize);
    if (ZSTD_isError(n) || n != h.rawSize)
        throw Error(dir_ + ": chunk at offset " + std::to_string(offset) + " does not decode: "
                    + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output"));
    if (headerOut)
        *headerOut = h;
    return h.rawSize;
}

std::string Pack::readChunk(uint64_t offset, ObjectHeader* headerOut, bool verifyHash) const
{
    ObjectHeader h = readHeader(offset);
    std::string raw(h.rawSize, '\0');
    readChunkInto(offset, raw.data(), raw.size(), &h);
    if (verifyHash && Sha256::of(raw.data(), raw.size()) != h.sha256)
        throw Error(dir_ + ": chunk at offset " + std::to_string(offset) + " does not match its SHA-256");
    if (headerOut)
        *headerOut = h;
    return raw;
}

void Pack::readRaw(uint64_t offset, void* buf, size_t size) const
{
    withLocated(offset, [&](const Generation&, const Where& w) {
        if (w.available < size)
            failAt(w.file->path(), w.position, "range of " + std::to_string(size) + " bytes at pack offset "
                                                   + std::to_string(offset) + " crosses the end of a live range");
        w.file->readAt(buf, size, w.position);
        return 0;
    });
}

void Pack::refreshWriterLocked()
{
    const Stamp s = statStamp(folder_, kControlFileName);
    if (writer_.isOpen() && s.ino == writerStamp_.ino && s.mtimeNs == writerStamp_.mtimeNs && s.size == writerStamp_.size)
        return;
    reload();
    const auto g = generation();
    if (!writer_.isOpen() || writerGeneration_ != g->control.generation) {
        writer_ = folder_.openFile(suffixFileName(g->control.generation), O_RDWR | O_CREAT);
        writerGeneration_ = g->control.generation;
    }
    writerStamp_ = {s.ino, s.mtimeNs, s.size};
}

Pack::AppendGuard::AppendGuard(Pack& pack)
    : mutex_(pack.appendMutex_), lock_(pack.folder_, "append.lock", FileLock::Exclusive)
{
}

uint64_t Pack::append(const std::string& objectBytes)
{
    return append(objectBytes.data(), objectBytes.size());
}

uint64_t Pack::append(const void* objectBytes, size_t size)
{
    std::lock_guard m(appendMutex_);
    FileLock lock(filePath("append.lock"), FileLock::Exclusive);
    refreshWriterLocked();
    const uint64_t split = generation()->control.split;
    const uint64_t pos = writer_.size();
    try {
        writer_.writeAt(objectBytes, size, pos);
    } catch (...) {
        // As in appendAll: a short write (ENOSPC) leaves a torn object that
        // nobody can reference; we hold the lock, so it is ours to drop.
        try {
            writer_.truncate(pos);
        } catch (const Error&) {
        }
        throw;
    }
    return split + pos;
}

std::vector<uint64_t> Pack::appendAll(const std::vector<std::string>& objects)
{
    std::lock_guard m(appendMutex_);
    FileLock lock(folder_, "append.lock", FileLock::Exclusive);
    refreshWriterLocked();
    const uint64_t split = generation()->control.split;
    uint64_t pos = writer_.size();
    std::vector<uint64_t> offsets;
    offsets.reserve(objects.size());
    std::string joined;
    for (const auto& o : objects) {
        offsets.push_back(split + pos + joined.size());
        joined += o;
    }
    try {
        writer_.writeAt(joined.data(), joined.size(), pos);
    } catch (...) {
        // A short write (ENOSPC) leaves a torn object at the end: nobody can
        // reference it, and we still hold the lock, so it is ours to drop.
        try {
            writer_.truncate(pos);
        } catch (const Error&) {
        }
        throw;
    }
    return offsets;
}

uint64_t Pack::dropOwnTail(std::vector<std::pair<uint64_t, uint64_t>> ranges)
{
    // Never while a GC runs: its split may lie above our objects, and offsets
    // below a split that appends reuse would be collected by it.
    const FileLock gc = tryLockGc();
    if (!gc.held())
        return 0;
    std::lock_guard m(appendMutex_);
    FileLock lock(filePath("append.lock"), FileLock::Exclusive);
    refreshWriterLocked();
    const uint64_t split = generation()->control.split;
    const uint64_t end = split + writer_.size();
    std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    uint64_t cut = end;
    for (const auto& [offset, length] : ranges) {
        if (offset + length != cut || offset < split)
            break;
        cut = offset;
    }
    if (cut == end)
        return 0;
    writer_.truncate(cut - split);
    return end - cut;
}

void Pack::sync()
{
    std::lock_guard m(appendMutex_);
    if (writer_.isOpen())
        writer_.sync();
}

void Pack::truncateTail(uint64_t logicalEnd)
{
    std::lock_guard m(appendMutex_);
    FileLock lock(folder_, "append.lock", FileLock::Exclusive);
    refreshWriterLocked();
    const uint64_t split = generation()->control.split;
    if (logicalEnd < split)
        throw Error(dir_ + ": cannot truncate the pack to offset " + std::to_string(logicalEnd)
                    + ", below the split point " + std::to_string(split));
    if (writer_.size() > logicalEnd - split) {
        writer_.truncate(logicalEnd - split);
        writer_.sync();
    }
}

FileLock Pack::tryLockGc() const
{
    return FileLock::tryLock(folder_, "gc.lock", FileLock::Exclusive);
}

std::vector<std::string> Pack::leftovers() const
{
    const PackControl c = PackControl::read(folder_);
    loadGeneration(c); // the current generation must open before anything else counts as a leftover
    std::vector<std::string> names;
    for (const auto& e : folder_.list()) {
        const std::string& name = e.name;
        uint64_t gen = 0;
        const bool tmp = name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0;
        if (tmp || (isGenerationFile(name, gen) && gen != c.generation))
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

void Pack::removeLeftovers()
{
    // Through the folder: a link among the leftovers is unlinked itself.
    for (const auto& name : leftovers()) {
        try {
            folder_.unlink(name);
        } catch (const Error&) {
            // left for the next GC or repair: a leftover that cannot go is harmless
        }
    }
}

} // namespace cs::pack
