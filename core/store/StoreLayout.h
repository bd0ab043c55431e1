// StoreLayout: the only place that names a path of a store and the only door
// to its files. Everything below the store folder is opened relative to the
// folder's descriptor without following links (cs::Folder: openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else openat with O_NOFOLLOW per
// component), and deleted with unlinkat on the parent's descriptor. A link
// where a folder or file of the store is expected is an error naming it; a
// link met while deleting a tree is unlinked itself, never followed.
//
//   <store>/                  the folder the user named (links in that path are theirs)
//   catalog.db                SQLite (+ -wal, -shm); must be a regular file
//   parts/<id>/<index>        raw uploaded parts of entry <id> (decimal, no sign, no leading 0)
//   parts/<id>/<index>.tmp.*  a part being written (OutputFile temp names inside)
//   parts/<name>.orphan.<pid>.<n>
//                             a part folder set aside for deletion (Store.h, "Orphaned parts")
//   merges.lock               shared flock of each process merging behind its command
//                             (Store.h, "Background merges"); empty, never removed
//   pack/                     cs::pack::Pack, opened through packFolder(): control,
//                             N.suffix, N.prefix, N.mapping, *.lock (names in
//                             core/pack/PackControl.h, owned by the pack module
//                             below the store)
#pragma once
#include "core/util/File.h"
#include "core/util/Folder.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cs::pack { class Pack; }

namespace cs::store {

class StoreLayout {
public:
    static constexpr const char* kCatalog = "catalog.db";
    static constexpr const char* kParts = "parts";
    static constexpr const char* kPack = "pack";
    static constexpr const char* kMergesLock = "merges.lock";

    // An existing store folder (catalog.db need not exist: callers decide);
    // a missing folder is "not a cachescope store" in one sentence.
    static StoreLayout open(const std::string& dir);
    // Creates the store folder and parts/ when missing.
    static StoreLayout create(const std::string& dir);

    const std::string& dir() const { return root_.path(); }
    const Folder& root() const { return root_; }

    // Path of catalog.db for SQLite, after checking it is a regular file or
    // missing (a link there is refused).
    std::string catalogPath() const;
    bool hasCatalog() const;
    // catalogPath() of a folder that must be a store: "not a cachescope
    // store (no catalog.db; ...)" naming the folder when it is missing.
    std::string storeCatalogPath() const;
    // Whether dir holds an entry named catalog.db of any kind (a link or a
    // folder there is refused, with its reason, by whatever opens it next):
    // how a store folder is told from another before it is opened. Never throws.
    static bool namesCatalog(const std::string& dir);
    // dir/catalog.db as text, for labels and messages; open it through catalogPath().
    static std::string catalogLabel(const std::string& dir) { return dir + "/" + kCatalog; }

    // pack/: refused with a sentence when it is a link or not a folder.
    Folder packFolder(bool create) const;
    // The pack in packFolder(create), for everything that reads or writes a
    // store's pack (the GUI's pack views included).
    std::unique_ptr<pack::Pack> openPack(bool create) const;
    bool hasPackFolder() const;

    // parts/; an error naming it when it is missing or could not be opened.
    const Folder& parts() const;
    // Makes parts/ when missing (init, and opening a writable store).
    void makeParts();
    static std::string partsName(int64_t id) { return std::to_string(id); }
    static std::string partName(uint32_t index) { return std::to_string(index); }
    // Trash name of a part folder being removed.
    static std::string orphanName(const std::string& folderName);
    // The decimal form the store writes for ids and part indexes.
    static bool parseEntryId(const std::string& name, int64_t& id);
    static bool parsePartIndex(const std::string& name, uint32_t& index);

    std::string partsPath() const { return root_.pathOf(kParts); }
    std::string partsPath(int64_t id) const { return partsPath() + "/" + partsName(id); }
    std::string partPath(int64_t id, uint32_t index) const { return partsPath(id) + "/" + partName(index); }

    // parts/<id>: nullopt when missing; a link or a file there is an error.
    std::optional<Folder> partsOf(int64_t id) const;
    Folder partsOfOrCreate(int64_t id) const;
    File openPart(int64_t id, uint32_t index) const;
    // Size of a part file, nullopt when it is missing or not a regular file.
    std::optional<uint64_t> partSize(int64_t id, uint32_t index) const;
    // Writes a part: unpredictable temp file, renamed into place, its
    // writeback started but not waited for. A part is durable only once a
    // commit has fdatasync'd it and fsynced parts/<id> (Store::commit, all
    // the parts together); no committed row names a part before that.
    void writePart(int64_t id, uint32_t index, const void* data, size_t size) const;
    // The same into parts/<id> opened once by the caller (putFile's writers).
    static void writePartIn(const Folder& folder, uint32_t index, const void* data, size_t size);
    // Removes parts/<id> file by file (afterEach runs after each removal: a
    // kill point), then the folder. A link at parts/<id> is unlinked, never
    // followed. False when there was nothing.
    bool removeParts(int64_t id, const std::function<void()>& afterEach = {}) const;

private:
    explicit StoreLayout(Folder root);
    Folder root_;
    std::optional<Folder> parts_;   // opened once: threads share it read-only
};

} // namespace cs::store
