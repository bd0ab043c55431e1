// An open folder, and the only way the core opens, lists, renames and
// deletes what lies below one without following symbolic links.
//
// The path a user names (a store folder, an output's folder) is trusted as
// given, links included: that is their choice. Everything BELOW it is
// resolved relative to the folder's descriptor with openat2(RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS) where the kernel has it, else component by component
// with openat(O_NOFOLLOW | O_DIRECTORY). So a link planted inside a store
// (parts/<id> pointing at /etc, pack/ pointing elsewhere) is an error naming
// the path, and deleting through a Folder removes a link itself, never what
// it points at.
#pragma once
#include "core/util/File.h"

#include <fcntl.h>

#include <optional>
#include <string>
#include <vector>

namespace cs {

class Folder {
public:
    enum class Kind { Missing, File, Folder, Link, Other };
    struct Child {
        std::string name;
        Kind kind;
    };

    Folder() = default;
    ~Folder();
    Folder(Folder&& o) noexcept;
    Folder& operator=(Folder&& o) noexcept;
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;

    // The folder at path, as the user named it (links in path are followed).
    static Folder open(const std::string& path);
    // Creates the folder at path (and its parents) when missing, then opens it.
    static Folder openOrCreate(const std::string& path);

    bool isOpen() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    std::string pathOf(const std::string& rel) const { return path_ + "/" + rel; }

    // Another descriptor of the same folder.
    Folder duplicate() const;

    // rel is relative ("a/b"), never absolute, never "..". A link anywhere in
    // it is an error: "<path>: is a symbolic link; ...".
    Folder sub(const std::string& rel) const;
    std::optional<Folder> trySub(const std::string& rel) const;   // nullopt when missing
    // Makes rel (one component) when missing, then opens it.
    Folder subOrCreate(const std::string& name) const;

    // flags as for open(2); O_NOFOLLOW and O_CLOEXEC are always added.
    File openFile(const std::string& rel, int flags, int mode = 0644) const;
    std::optional<File> tryOpenFile(const std::string& rel, int flags, int mode = 0644) const;   // nullopt when missing
    File openRead(const std::string& rel) const { return openFile(rel, O_RDONLY); }

    // What rel is, links not followed.
    Kind kindOf(const std::string& rel) const;
    uint64_t sizeOf(const std::string& rel) const;   // 0 unless a regular file
    std::vector<Child> list() const;                 // sorted by name, without . and ..

    // Removes one name in this folder: a file or a link (the link itself).
    // Returns false when it was already gone.
    bool unlink(const std::string& name) const;
    bool removeEmptyFolder(const std::string& name) const;
    // Removes name and, when it is a real folder, everything below it; links
    // met on the way are unlinked, never followed. False when already gone.
    bool removeTree(const std::string& name) const;
    // Within this folder, or into another open folder.
    void rename(const std::string& from, const std::string& to) const;
    void rename(const std::string& from, const Folder& toFolder, const std::string& to) const;
    bool renameNoReplace(const std::string& from, const std::string& to) const;   // false when to exists
    void sync() const;

    // Tests: resolve component by component even where openat2 exists, so
    // the fallback is exercised on every kernel.
    static void forceComponentWalk(bool on);

private:
    Folder(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    int resolve(const std::string& rel, int flags, int mode, bool& missing) const;
    int fd_ = -1;
    std::string path_;
};

} // namespace cs
