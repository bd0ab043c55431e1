#include "core/store/StoreLayout.h"

#include "core/pack/Pack.h"
#include "core/util/Error.h"
#include "core/util/OutputFile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace cs::store {

namespace {

std::atomic<uint64_t> orphanCounter{0};

bool parseDecimal(const std::string& name, size_t maxDigits, uint64_t& value)
{
    if (name.empty() || name.size() > maxDigits || (name.size() > 1 && name[0] == '0'))
        return false;
    value = 0;
    for (char c : name) {
        if (c < '0' || c > '9')
            return false;
        value = value * 10 + uint64_t(c - '0');
    }
    return true;
}

} // namespace

StoreLayout::StoreLayout(Folder root) : root_(std::move(root))
{
    // Opening makes nothing: a folder that turns out not to be a store, or a
    // read-only one, is left as it was (makeParts is for writers).
    parts_ = root_.trySub(kParts);
}

void StoreLayout::makeParts()
{
    if (parts_)
        return;
    if (root_.kindOf(kParts) == Folder::Kind::Missing)
        ::mkdirat(root_.fd(), kParts, 0755);   // a failure is said by parts()
    parts_ = root_.trySub(kParts);
}

StoreLayout StoreLayout::open(const std::string& dir)
{
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 && errno == ENOENT)
        fail(dir, "not a cachescope store (the folder does not exist; create one with 'cachescope-cli store init')");
    return StoreLayout(Folder::open(dir));
}

StoreLayout StoreLayout::create(const std::string& dir) { return StoreLayout(Folder::openOrCreate(dir)); }

std::string StoreLayout::catalogPath() const
{
    // SQLite opens these by name, following links: check them first. (A
    // link planted between this check and SQLite's open needs write access
    // to the store folder, which owns the store anyway.)
    for (const std::string& name : {std::string(kCatalog), std::string(kCatalog) + "-wal",
                                   std::string(kCatalog) + "-shm", std::string(kCatalog) + "-journal"}) {
        const Folder::Kind k = root_.kindOf(name);
        if (k == Folder::Kind::Link)
            fail(root_.pathOf(name), "is a symbolic link, and cachescope never follows links inside a store "
                                     "(put the real file there, or remove the link)");
        if (k != Folder::Kind::File && k != Folder::Kind::Missing)
            fail(root_.pathOf(name), "is not a regular file");
    }
    return root_.pathOf(kCatalog);
}

bool StoreLayout::hasCatalog() const { return root_.kindOf(kCatalog) == Folder::Kind::File; }

std::string StoreLayout::storeCatalogPath() const
{
    std::string path = catalogPath();
    if (!hasCatalog())
        fail(dir(), "not a cachescope store (no catalog.db; create one with 'cachescope-cli store init')");
    return path;
}

bool StoreLayout::namesCatalog(const std::string& dir)
{
    try {
        return open(dir).root().kindOf(kCatalog) != Folder::Kind::Missing;
    } catch (const Error&) {
        return false;
    }
}

bool StoreLayout::hasPackFolder() const { return root_.kindOf(kPack) == Folder::Kind::Folder; }

Folder StoreLayout::packFolder(bool create) const
{
    const Folder::Kind k = root_.kindOf(kPack);
    if (k == Folder::Kind::Link)
        fail(root_.pathOf(kPack), "is a symbolic link; a store's pack folder must be a real folder inside the store "
                                  "(cachescope never follows links there: replace the link with the folder it "
                                  "points to)");
    if (k == Folder::Kind::Missing && create)
        return root_.subOrCreate(kPack);
    return root_.sub(kPack);
}

std::unique_ptr<pack::Pack> StoreLayout::openPack(bool create) const
{
    return pack::Pack::open(packFolder(create), create);
}

const Folder& StoreLayout::parts() const
{
    if (!parts_) {
        const Folder::Kind k = root_.kindOf(kParts);
        if (k == Folder::Kind::Link)
            fail(partsPath(), "is a symbolic link, and cachescope never follows links inside a store "
                              "(replace the link with a real folder)");
        fail(partsPath(), k == Folder::Kind::Missing ? "is missing and cannot be created (is the store read-only?)"
                                                     : "is not a folder");
    }
    return *parts_;
}

std::string StoreLayout::orphanName(const std::string& folderName)
{
    return folderName + ".orphan." + std::to_string(::getpid()) + "." + std::to_string(orphanCounter++);
}

bool StoreLayout::parseEntryId(const std::string& name, int64_t& id)
{
    uint64_t v = 0;
    if (!parseDecimal(name, 18, v))
        return false;
    id = int64_t(v);
    return true;
}

bool StoreLayout::parsePartIndex(const std::string& name, uint32_t& index)
{
    uint64_t v = 0;
    if (!parseDecimal(name, 9, v))
        return false;
    index = uint32_t(v);
    return true;
}

std::optional<Folder> StoreLayout::partsOf(int64_t id) const
{
    if (!parts_ && root_.kindOf(kParts) == Folder::Kind::Missing)
        return std::nullopt;
    return parts().trySub(partsName(id));
}

Folder StoreLayout::partsOfOrCreate(int64_t id) const { return parts().subOrCreate(partsName(id)); }

File StoreLayout::openPart(int64_t id, uint32_t index) const
{
    return parts().openFile(partsName(id) + "/" + partName(index), O_RDONLY);
}

std::optional<uint64_t> StoreLayout::partSize(int64_t id, uint32_t index) const
{
    const auto folder = partsOf(id);
    if (!folder || folder->kindOf(partName(index)) != Folder::Kind::File)
        return std::nullopt;
    return folder->sizeOf(partName(index));
}

void StoreLayout::writePart(int64_t id, uint32_t index, const void* data, size_t size) const
{
    writePartIn(partsOfOrCreate(id), index, data, size);
}

void StoreLayout::writePartIn(const Folder& folder, uint32_t index, const void* data, size_t size)
{
    OutputFile out = OutputFile::openIn(folder, partName(index));
    out.writeAll(data, size);
    out.commit(OutputFile::Sync::ByCaller);
}

bool StoreLayout::removeParts(int64_t id, const std::function<void()>& afterEach) const
{
    if (!parts_)
        return false;
    const std::string name = partsName(id);
    const Folder::Kind k = parts_->kindOf(name);
    if (k == Folder::Kind::Missing)
        return false;
    if (k != Folder::Kind::Folder)
        return parts_->unlink(name);   // a link (or a stray file) goes itself, its target stays
    // File by file, so a crash can leave a folder partly removed (an orphan
    // all the same: its row is gone or merged before this runs).
    if (auto folder = parts_->trySub(name)) {
        for (const auto& c : folder->list()) {
            folder->removeTree(c.name);
            if (afterEach)
                afterEach();
        }
    }
    return parts_->removeTree(name);
}

} // namespace cs::store
