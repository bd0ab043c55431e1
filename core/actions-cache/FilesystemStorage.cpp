// ActionsStorage over the server's filesystem storage folder.
//
// Invariant: below the root nothing is reached through a symbolic link.
// Every path is walked one name at a time with openat(O_NOFOLLOW) from a
// descriptor of its parent, so a link planted anywhere in the folder (for
// the folder, parts/, a part or merged) is reported by name and never read,
// overwritten or deleted through. The root itself may be a link: the user
// named it. Special files (FIFOs, devices) are never opened for reading.
#include "core/actions-cache/ActionsBackend.h"
#include "core/actions-cache/ActionsInternal.h"

#include "core/util/Error.h"
#include "core/util/OpenFiles.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs::actions {

namespace {

// An owned descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd& operator=(Fd&& o) noexcept
    {
        if (this != &o) {
            reset();
            fd_ = o.fd_;
            o.fd_ = -1;
        }
        return *this;
    }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset()
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

constexpr const char* kLinkRefused = "is a symbolic link; cachescope never follows links inside the storage folder";

// Part names are the decimal index the server writes (`${partIndex}`):
// digits, no leading zero, at most 18 of them.
std::optional<uint64_t> partIndexOf(const char* name)
{
    const size_t n = std::strlen(name);
    if (n == 0 || n > 18 || (n > 1 && name[0] == '0'))
        return std::nullopt;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
        if (name[i] < '0' || name[i] > '9')
            return std::nullopt;
        v = v * 10 + uint64_t(name[i] - '0');
    }
    return v;
}

void checkFolderName(const std::string& root, const std::string& folder)
{
    if (folder.empty() || folder == "." || folder == ".." || folder.find('/') != std::string::npos
        || folder.find('\0') != std::string::npos)
        fail(root, "folder name '" + folder + "' from the catalog is not a plain folder name");
}

// Names in a directory (not . and ..), read once.
std::vector<std::string> namesIn(int dirFd, const std::string& path)
{
    const int dup = ::fcntl(dirFd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0)
        failErrno(path, "cannot read the folder");
    DIR* d = ::fdopendir(dup);
    if (!d) {
        ::close(dup);
        failErrno(path, "cannot read the folder");
    }
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
            names.emplace_back(e->d_name);
        errno = 0;
    }
    const int err = errno;
    ::closedir(d);
    if (err) {
        errno = err;
        failErrno(path, "cannot read the folder");
    }
    std::sort(names.begin(), names.end());
    return names;
}

class FileReader final : public ObjectReader {
public:
    FileReader(Fd fd, std::string path, uint64_t size) : fd_(std::move(fd)), path_(std::move(path)), size_(size) {}
    uint64_t size() const override { return size_; }
    size_t read(void* buf, size_t n) override
    {
        for (;;) {
            const ssize_t got = ::read(fd_.get(), buf, n);
            if (got >= 0)
                return size_t(got);
            if (errno != EINTR)
                failErrno(path_, "cannot read");
        }
    }
    void skip(uint64_t n) override
    {
        if (::lseek(fd_.get(), off_t(n), SEEK_CUR) < 0)
            failErrno(path_, "cannot seek");
    }

private:
    Fd fd_;
    std::string path_;
    uint64_t size_;
};

class FileMergedWriter final : public MergedWriter {
public:
    FileMergedWriter(Fd folder, Fd file, std::string folderPath, std::string tempName)
        : folder_(std::move(folder)), file_(std::move(file)), folderPath_(std::move(folderPath)),
          tempName_(std::move(tempName))
    {
    }
    ~FileMergedWriter() override
    {
        if (!published_)
            ::unlinkat(folder_.get(), tempName_.c_str(), 0);
    }
    void write(const void* buf, size_t n) override
    {
        const char* p = static_cast<const char*>(buf);
        while (n > 0) {
            const ssize_t put = ::write(file_.get(), p, n);
            if (put < 0) {
                if (errno == EINTR)
                    continue;
                failErrno(folderPath_ + "/" + tempName_, "cannot write the merged file");
            }
            p += put;
            n -= size_t(put);
        }
    }
    void finish() override
    {
        if (::fsync(file_.get()) != 0)
            failErrno(folderPath_ + "/" + tempName_, "cannot flush the merged file to disk");
    }
    void publish() override
    {
        // rename() replaces the name "merged" itself; beginMerged refused a link there.
        if (::renameat(folder_.get(), tempName_.c_str(), folder_.get(), "merged") != 0)
            failErrno(folderPath_ + "/merged", "cannot move the merged file into place");
        published_ = true;
        if (::fsync(folder_.get()) != 0)
            failErrno(folderPath_, "cannot flush the folder to disk");
    }

private:
    Fd folder_, file_;
    std::string folderPath_, tempName_;
    bool published_ = false;
};

class FilesystemStorage final : public ActionsStorage {
public:
    explicit FilesystemStorage(std::string root) : root_(std::move(root))
    {
        while (root_.size() > 1 && root_.back() == '/')
            root_.pop_back();
        struct stat st;
        if (::stat(root_.c_str(), &st) != 0)
            failErrno(root_, "cannot open the storage folder");
        if (!S_ISDIR(st.st_mode))
            fail(root_, "the storage path is not a folder");
    }

    std::string describe() const override { return root_; }
    std::string objectName(const std::string& folder, const std::string& relative) const override
    {
        return relative.empty() ? root_ + "/" + folder : root_ + "/" + folder + "/" + relative;
    }

    std::vector<std::string> folders() override
    {
        Fd root = openRoot();
        return namesIn(root.get(), root_);
    }

    FolderListing listFolder(const std::string& folder) override
    {
        FolderListing out;
        Fd root = openRoot();
        Fd dir = openSubdir(root.get(), folder, objectName(folder, ""), true);
        if (!dir)
            return out;
        out.exists = true;
        for (const auto& name : namesIn(dir.get(), objectName(folder, ""))) {
            struct stat st;
            if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue; // gone since the listing
            if (S_ISLNK(st.st_mode))
                out.links.push_back(name);
            else if (name == "parts" && S_ISDIR(st.st_mode))
                out.hasPartsFolder = true;
            else if (name == "merged" && S_ISREG(st.st_mode))
                out.mergedSize = uint64_t(st.st_size);
            else
                out.strays.push_back(name);
        }
        if (!out.hasPartsFolder)
            return out;
        Fd parts = openSubdir(dir.get(), "parts", objectName(folder, "parts"), true);
        if (!parts)
            return out;
        for (const auto& name : namesIn(parts.get(), objectName(folder, "parts"))) {
            struct stat st;
            if (::fstatat(parts.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            const auto index = partIndexOf(name.c_str());
            if (S_ISLNK(st.st_mode))
                out.links.push_back("parts/" + name);
            else if (index && S_ISREG(st.st_mode))
                out.parts.push_back({*index, uint64_t(st.st_size)});
            else
                out.strays.push_back("parts/" + name);
        }
        std::sort(out.parts.begin(), out.parts.end(),
                  [](const PartObject& a, const PartObject& b) { return a.index < b.index; });
        return out;
    }

    std::unique_ptr<ObjectReader> openPart(const std::string& folder, uint64_t index) override
    {
        Fd root = openRoot();
        Fd dir = openSubdir(root.get(), folder, objectName(folder, ""), false);
        Fd parts = openSubdir(dir.get(), "parts", objectName(folder, "parts"), false);
        return openRegular(parts.get(), std::to_string(index), objectName(folder, "parts/" + std::to_string(index)));
    }

    std::unique_ptr<ObjectReader> openMerged(const std::string& folder) override
    {
        Fd root = openRoot();
        Fd dir = openSubdir(root.get(), folder, objectName(folder, ""), false);
        return openRegular(dir.get(), "merged", objectName(folder, "merged"));
    }

    std::unique_ptr<MergedWriter> beginMerged(const std::string& folder) override
    {
        Fd root = openRoot();
        Fd dir = openSubdir(root.get(), folder, objectName(folder, ""), false);
        struct stat st;
        if (::fstatat(dir.get(), "merged", &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
            fail(objectName(folder, "merged"),
                 S_ISLNK(st.st_mode) ? kLinkRefused : "is not a regular file; refusing to replace it");
        // The merged file is no more readable than the least readable part,
        // and owned like the parts, so the server can still read and delete it.
        mode_t mode = 0666;
        std::optional<uid_t> uid;
        std::optional<gid_t> gid;
        bool sameOwner = true;
        if (Fd parts = openSubdir(dir.get(), "parts", objectName(folder, "parts"), true)) {
            for (const auto& name : namesIn(parts.get(), objectName(folder, "parts"))) {
                if (::fstatat(parts.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
                    continue;
                mode &= st.st_mode & 0777;
                if (uid && (*uid != st.st_uid || *gid != st.st_gid))
                    sameOwner = false;
                uid = st.st_uid;
                gid = st.st_gid;
            }
        }
        // Leftover temp files of merges that crashed (only merges write these
        // names; the server writes merged in place) go before a new one
        // starts; a live process's temp file is its merge under way, and stays.
        for (const auto& name : namesIn(dir.get(), objectName(folder, "")))
            if (name.rfind("merged.tmp-", 0) == 0 && !isLiveMergeTemp(name)
                && ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                ::unlinkat(dir.get(), name.c_str(), 0);
        const std::string temp = "merged.tmp-" + std::to_string(::getpid());
        Fd file(::openat(dir.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!file)
            failErrno(objectName(folder, temp), "cannot create the temporary merged file");
        if (uid && sameOwner && ::geteuid() == 0)
            (void)::fchown(file.get(), *uid, *gid);
        if (::fchmod(file.get(), uid ? mode : 0600) != 0) {
            const int err = errno;
            ::unlinkat(dir.get(), temp.c_str(), 0);
            errno = err;
            failErrno(objectName(folder, temp), "cannot set the merged file's permissions");
        }
        return std::make_unique<FileMergedWriter>(std::move(dir), std::move(file), objectName(folder, ""), temp);
    }

    void deletePart(const std::string& folder, uint64_t index) override
    {
        Fd root = openRoot();
        Fd dir = openSubdir(root.get(), folder, objectName(folder, ""), true);
        if (!dir)
            return;
        Fd parts = openSubdir(dir.get(), "parts", objectName(folder, "parts"), true);
        if (!parts)
            return;
        const std::string name = std::to_string(index);
        struct stat st;
        if (::fstatat(parts.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return;
        if (S_ISLNK(st.st_mode))
            fail(objectName(folder, "parts/" + name), kLinkRefused);
        if (::unlinkat(parts.get(), name.c_str(), 0) != 0 && errno != ENOENT)
            failErrno(objectName(folder, "parts/" + name), "cannot delete the part");
    }

    void deletePartsFolder(const std::string& folder) override
    {
        Fd root = openRoot();
        Fd dir = openSubdir(root.get(), folder, objectName(folder, ""), true);
        if (!dir)
            return;
        removeEntry(dir.get(), "parts", objectName(folder, "parts"), 0);
        if (::fsync(dir.get()) != 0)
            failErrno(objectName(folder, ""), "cannot flush the folder to disk");
    }

    void deleteFolder(const std::string& folder) override
    {
        checkFolderName(root_, folder);
        Fd root = openRoot();
        removeEntry(root.get(), folder, objectName(folder, ""), 0);
        if (::fsync(root.get()) != 0)
            failErrno(root_, "cannot flush the storage folder to disk");
    }

    std::vector<std::string> otherUsers(const std::string& folder) override
    {
        if (!folder.empty() && !isPlainName(folder))
            return {};
        return describeHolders(processesHolding({}, {folder.empty() ? root_ : root_ + "/" + folder}));
    }

private:
    static bool isPlainName(const std::string& n) { return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos; }

    Fd openRoot() const
    {
        Fd fd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!fd)
            failErrno(root_, "cannot open the storage folder");
        return fd;
    }

    // The folder `name` under parentFd, never through a link. Missing: an
    // empty Fd when allowMissing, else an error.
    Fd openSubdir(int parentFd, const std::string& name, const std::string& path, bool allowMissing) const
    {
        if (parentFd == -1 || name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
            fail(root_, "folder name '" + name + "' from the catalog is not a plain folder name");
        Fd fd(::openat(parentFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (fd)
            return fd;
        const int err = errno;
        struct stat st;
        if (::fstatat(parentFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            fail(path, kLinkRefused);
        if (err == ENOENT && allowMissing)
            return Fd();
        errno = err;
        failErrno(path, err == ENOTDIR ? "is not a folder" : "cannot open");
    }

    std::unique_ptr<ObjectReader> openRegular(int dirFd, const std::string& name, const std::string& path) const
    {
        // O_NONBLOCK: opening a FIFO must not hang; we refuse it below.
        Fd fd(::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        if (!fd) {
            if (errno == ELOOP)
                fail(path, kLinkRefused);
            failErrno(path, "cannot open");
        }
        struct stat st;
        if (::fstat(fd.get(), &st) != 0)
            failErrno(path, "cannot read");
        if (!S_ISREG(st.st_mode))
            fail(path, "is not a regular file");
        const int flags = ::fcntl(fd.get(), F_GETFL);
        ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
        return std::make_unique<FileReader>(std::move(fd), path, uint64_t(st.st_size));
    }

    // Removes name under dirFd: a link or file is unlinked (a link itself,
    // never its target), a folder emptied the same way first. Depth-bounded:
    // the server writes two levels.
    void removeEntry(int dirFd, const std::string& name, const std::string& path, int depth) const
    {
        struct stat st;
        if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                return;
            failErrno(path, "cannot delete");
        }
        if (!S_ISDIR(st.st_mode)) {
            if (::unlinkat(dirFd, name.c_str(), 0) != 0 && errno != ENOENT)
                failErrno(path, "cannot delete");
            return;
        }
        if (depth >= 8)
            fail(path, "is nested deeper than the server writes; refusing to delete it");
        Fd sub(::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!sub)
            failErrno(path, "cannot open to delete");
        for (const auto& child : namesIn(sub.get(), path))
            removeEntry(sub.get(), child, path + "/" + child, depth + 1);
        if (::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
            failErrno(path, "cannot delete the folder");
    }

    std::string root_;
};

} // namespace

std::unique_ptr<ActionsStorage> openFilesystemStorage(const std::string& root)
{
    return std::make_unique<FilesystemStorage>(root);
}

} // namespace cs::actions
