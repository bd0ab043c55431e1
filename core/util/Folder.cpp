#include "core/util/Folder.h"

#include "core/util/Error.h"

#include <dirent.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <utility>

namespace cs {

namespace {

// Cleared the first time the kernel says it has no openat2 (before 5.6).
std::atomic<bool> haveOpenat2{true};
std::atomic<bool> forceWalk{false};

std::vector<std::string> componentsOf(const std::string& base, const std::string& rel)
{
    if (rel.empty() || rel.front() == '/')
        fail(base, "internal error: '" + rel + "' is not a relative path below the folder");
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= rel.size()) {
        const size_t slash = std::min(rel.find('/', start), rel.size());
        const std::string c = rel.substr(start, slash - start);
        if (c.empty() || c == "." || c == "..")
            fail(base, "internal error: '" + rel + "' is not a plain relative path below the folder");
        parts.push_back(c);
        start = slash + 1;
    }
    return parts;
}

Folder::Kind kindAt(int dirFd, const char* name)
{
    struct stat st {};
    if (::fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return Folder::Kind::Missing;
    if (S_ISLNK(st.st_mode)) return Folder::Kind::Link;
    if (S_ISDIR(st.st_mode)) return Folder::Kind::Folder;
    if (S_ISREG(st.st_mode)) return Folder::Kind::File;
    return Folder::Kind::Other;
}

// The first component of rel that is a link, for the error sentence.
std::optional<std::string> linkIn(int dirFd, const std::string& base, const std::vector<std::string>& parts)
{
    std::string path = base;
    int cur = ::dup(dirFd);
    std::optional<std::string> found;
    for (const auto& c : parts) {
        path += "/" + c;
        if (cur < 0)
            break;
        if (kindAt(cur, c.c_str()) == Folder::Kind::Link) {
            found = path;
            break;
        }
        const int next = ::openat(cur, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        ::close(cur);
        cur = next;
    }
    if (cur >= 0)
        ::close(cur);
    return found;
}

[[noreturn]] void failLink(const std::string& path)
{
    fail(path, "is a symbolic link, and cachescope never follows links inside a store or next to an output "
               "(remove the link, or put the real file or folder there)");
}

[[noreturn]] void failNotRegular(const std::string& path)
{
    fail(path, "is not a regular file (a FIFO, device or socket here is never read or written: it could make "
               "cachescope wait forever); put the real file there, or remove it");
}

} // namespace

void Folder::forceComponentWalk(bool on) { forceWalk = on; }

Folder::~Folder()
{
    if (fd_ >= 0)
        ::close(fd_);
}

Folder::Folder(Folder&& o) noexcept : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

Folder& Folder::operator=(Folder&& o) noexcept
{
    if (this != &o) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = std::exchange(o.fd_, -1);
        path_ = std::move(o.path_);
    }
    return *this;
}

Folder Folder::open(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        failErrno(path, "cannot open the folder");
    return Folder(fd, path);
}

Folder Folder::openOrCreate(const std::string& path)
{
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec)
        fail(path, "cannot create the folder: " + ec.message());
    return open(path);
}

int Folder::resolve(const std::string& rel, int flags, int mode, bool& missing) const
{
    missing = false;
    const auto parts = componentsOf(path_, rel);
    flags |= O_NOFOLLOW | O_CLOEXEC;
    const bool creates = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
    int fd = -1;
    int err = 0;
    if (haveOpenat2 && !forceWalk) {
        struct open_how how {};
        how.flags = uint64_t(flags);
        how.mode = creates ? uint64_t(mode) : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        do {
            fd = int(::syscall(SYS_openat2, fd_, rel.c_str(), &how, sizeof how));
        } while (fd < 0 && (errno == EINTR || errno == EAGAIN));
        if (fd < 0 && errno == ENOSYS)
            haveOpenat2 = false;
        else
            err = fd < 0 ? errno : 0;
    }
    if (!haveOpenat2 || forceWalk) {
        int cur = fd_;
        err = 0;
        for (size_t i = 0; i + 1 < parts.size() && err == 0; ++i) {
            const int next = ::openat(cur, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0)
                err = errno;
            if (cur != fd_)
                ::close(cur);
            cur = next;
        }
        if (err == 0) {
            fd = ::openat(cur, parts.back().c_str(), flags, mode);
            err = fd < 0 ? errno : 0;
        }
        if (cur >= 0 && cur != fd_)
            ::close(cur);
    }
    if (fd >= 0)
        return fd;
    if (err == ELOOP || err == EXDEV || err == ENOTDIR) {
        if (const auto at = linkIn(fd_, path_, parts))
            failLink(*at);
        if (err == ENOTDIR)
            fail(pathOf(rel), "is not a folder, or a folder in its path is not one");
        failLink(pathOf(rel));
    }
    if (err == ENOENT) {
        missing = true;
        return -1;
    }
    if (err == ENXIO)   // a FIFO without a reader (O_NONBLOCK), a socket
        failNotRegular(pathOf(rel));
    errno = err;
    failErrno(pathOf(rel), creates ? "cannot create" : "cannot open");
}

Folder Folder::duplicate() const
{
    const int fd = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        failErrno(path_, "cannot duplicate the folder descriptor");
    return Folder(fd, path_);
}

Folder Folder::sub(const std::string& rel) const
{
    auto f = trySub(rel);
    if (!f) {
        errno = ENOENT;
        failErrno(pathOf(rel), "cannot open the folder");
    }
    return std::move(*f);
}

std::optional<Folder> Folder::trySub(const std::string& rel) const
{
    bool missing = false;
    const int fd = resolve(rel, O_RDONLY | O_DIRECTORY, 0, missing);
    if (missing)
        return std::nullopt;
    return Folder(fd, pathOf(rel));
}

Folder Folder::subOrCreate(const std::string& name) const
{
    if (::mkdirat(fd_, name.c_str(), 0755) != 0 && errno != EEXIST)
        failErrno(pathOf(name), "cannot create the folder");
    return sub(name);
}

File Folder::openFile(const std::string& rel, int flags, int mode) const
{
    auto f = tryOpenFile(rel, flags, mode);
    if (!f) {
        errno = ENOENT;
        failErrno(pathOf(rel), "cannot open");
    }
    return std::move(*f);
}

// A FIFO, device or socket planted in a store: its open (or first read) would
// wait for a peer that never comes, beyond Ctrl-C. Opened with O_NONBLOCK
// (returns at once: a FIFO for reading opens, for writing fails with ENXIO)
// and refused unless it is a regular file.
//
// A file opened for writing must have one link: a hard link planted in a
// store (`ln -f outside/victim S/pack/1.suffix`) would make an append or a
// truncation change the file behind the other name. O_TRUNC is applied
// after that check, never by the open itself. Reads are unaffected.
std::optional<File> Folder::tryOpenFile(const std::string& rel, int flags, int mode) const
{
    const bool writes = (flags & O_ACCMODE) != O_RDONLY;
    const bool truncate = (flags & O_TRUNC) != 0;
    bool missing = false;
    const int fd = resolve(rel, (flags & ~O_TRUNC) | O_NONBLOCK, mode, missing);
    if (missing)
        return std::nullopt;
    File f = File::adopt(fd, pathOf(rel));
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        failErrno(f.path(), "cannot stat");
    if (!S_ISREG(st.st_mode))
        failNotRegular(f.path());
    if (writes && st.st_nlink > 1)
        fail(f.path(), "has " + std::to_string(st.st_nlink) + " hard links (the same file under another name); "
                       "cachescope never writes a store file another name shares, nothing was written: "
                       "replace it with a copy of its own (cp --remove-destination, or remove the other name)");
    if (truncate && ::ftruncate(fd, 0) != 0)
        failErrno(f.path(), "cannot truncate");
    f.setBlocking();
    return f;
}

Folder::Kind Folder::kindOf(const std::string& rel) const
{
    const auto parts = componentsOf(path_, rel);
    if (parts.size() == 1)
        return kindAt(fd_, rel.c_str());
    const std::string parent = rel.substr(0, rel.rfind('/'));
    const auto f = trySub(parent);
    return f ? kindAt(f->fd(), parts.back().c_str()) : Kind::Missing;
}

uint64_t Folder::sizeOf(const std::string& rel) const
{
    const auto parts = componentsOf(path_, rel);
    std::optional<Folder> parent;
    int dirFd = fd_;
    if (parts.size() > 1) {
        parent = trySub(rel.substr(0, rel.rfind('/')));
        if (!parent)
            return 0;
        dirFd = parent->fd();
    }
    struct stat st {};
    if (::fstatat(dirFd, parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return 0;
    return uint64_t(st.st_size);
}

std::vector<Folder::Child> Folder::list() const
{
    const int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        failErrno(path_, "cannot list the folder");
    DIR* d = ::fdopendir(fd);
    if (!d) {
        ::close(fd);
        failErrno(path_, "cannot list the folder");
    }
    std::vector<Child> out;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..")
            continue;
        Kind k;
        switch (e->d_type) {
        case DT_REG: k = Kind::File; break;
        case DT_DIR: k = Kind::Folder; break;
        case DT_LNK: k = Kind::Link; break;
        case DT_UNKNOWN: k = kindAt(fd_, e->d_name); break;
        default: k = Kind::Other; break;
        }
        out.push_back({name, k});
    }
    ::closedir(d);
    std::sort(out.begin(), out.end(), [](const Child& a, const Child& b) { return a.name < b.name; });
    return out;
}

bool Folder::unlink(const std::string& name) const
{
    componentsOf(path_, name);
    if (::unlinkat(fd_, name.c_str(), 0) == 0)
        return true;
    if (errno == ENOENT)
        return false;
    failErrno(pathOf(name), "cannot delete");
}

bool Folder::removeEmptyFolder(const std::string& name) const
{
    componentsOf(path_, name);
    if (::unlinkat(fd_, name.c_str(), AT_REMOVEDIR) == 0)
        return true;
    if (errno == ENOENT)
        return false;
    failErrno(pathOf(name), "cannot delete the folder");
}

bool Folder::removeTree(const std::string& name) const
{
    componentsOf(path_, name);
    if (name.find('/') != std::string::npos)
        fail(path_, "internal error: removeTree takes one name, not '" + name + "'");
    const Kind k = kindAt(fd_, name.c_str());
    if (k == Kind::Missing)
        return false;
    if (k != Kind::Folder)
        return unlink(name);
    // O_NOFOLLOW: if the folder was swapped for a link since the fstatat,
    // the open fails and the link itself is unlinked below.
    const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return false;
        if (errno == ELOOP || errno == ENOTDIR)
            return unlink(name);
        failErrno(pathOf(name), "cannot open the folder to delete it");
    }
    const Folder f(fd, pathOf(name));
    for (const auto& c : f.list())
        f.removeTree(c.name);
    return removeEmptyFolder(name);
}

void Folder::rename(const std::string& from, const std::string& to) const { rename(from, *this, to); }

void Folder::rename(const std::string& from, const Folder& toFolder, const std::string& to) const
{
    componentsOf(path_, from);
    componentsOf(toFolder.path_, to);
    if (::renameat(fd_, from.c_str(), toFolder.fd_, to.c_str()) != 0)
        failErrno(toFolder.pathOf(to), "cannot rename " + pathOf(from) + " to it");
}

bool Folder::renameNoReplace(const std::string& from, const std::string& to) const
{
    componentsOf(path_, from);
    componentsOf(path_, to);
    if (::renameat2(fd_, from.c_str(), fd_, to.c_str(), RENAME_NOREPLACE) == 0)
        return true;
    if (errno == EEXIST)
        return false;
    failErrno(pathOf(to), "cannot rename " + pathOf(from) + " to it");
}

void Folder::sync() const
{
    if (::fsync(fd_) != 0)
        failErrno(path_, "fsync of folder failed");
}

} // namespace cs
