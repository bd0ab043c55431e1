#include "core/util/OutputFile.h"

#include "core/util/Error.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>

namespace cs {

namespace {

std::atomic<bool> namedTempOnly{false};

std::string randomHex()
{
    unsigned char bytes[8];
    size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            failErrno("getrandom", "cannot draw a random temp file name");
        }
        got += size_t(n);
    }
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned char b : bytes) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

// A temp name nobody can predict, hidden, short enough for NAME_MAX, and
// naming the process that writes it: ".NAME.cachescope-PID-HEX16" (or the
// tail alone for a long NAME). The pid tells a leftover of a killed writer
// from a write under way (OutputFile::tempWriterOf).
constexpr const char* kTempTag = ".cachescope-";
constexpr size_t kTempHexDigits = 16;

std::string tempHead(const std::string& name)
{
    // The longest tail: the tag, 10 digits of a pid, '-', the hex digits.
    const size_t longestTail = std::strlen(kTempTag) + 10 + 1 + kTempHexDigits;
    return name.size() + longestTail + 1 <= NAME_MAX ? "." + name + kTempTag : std::string(kTempTag);
}

std::string tempNameFor(const std::string& name)
{
    return tempHead(name) + std::to_string(::getpid()) + "-" + randomHex();
}

bool isStdoutName(const std::string& path)
{
    return path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1";
}

mode_t currentUmask()
{
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
}

const char* kindName(mode_t m)
{
    if (S_ISREG(m)) return "a regular file";
    if (S_ISDIR(m)) return "a folder";
    return "nothing";
}

constexpr int kWaitSliceMs = 100;

// Opens an existing non-regular file in place for writing. O_NONBLOCK so that
// the open of a FIFO never blocks: without a reader it fails with ENXIO, and
// is retried every 100 ms after cancelCheck (which throws to stop) until a
// reader comes. A blocking open would wait in the kernel, restarted after
// every signal whose handler has SA_RESTART, so Ctrl-C could not stop it.
// ENXIO from anything else (a socket, a device with no driver) is the error.
int openInPlace(const std::string& path, bool throughLink, const std::function<void()>& cancelCheck)
{
    const int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (throughLink ? 0 : O_NOFOLLOW);
    for (;;) {
        const int fd = ::open(path.c_str(), flags);
        if (fd >= 0)
            return fd;
        const int err = errno;
        if (err == EINTR)
            continue;
        struct stat now {};
        if (err != ENXIO || ::stat(path.c_str(), &now) != 0 || !S_ISFIFO(now.st_mode)) {
            errno = err;
            failErrno(path, "cannot open for writing");
        }
        if (cancelCheck)
            cancelCheck();
        ::poll(nullptr, 0, kWaitSliceMs);   // a signal ends it early: fine
    }
}

std::string parentOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

bool sameFolder(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The output's folder as the kernel resolves it, then each folder above it
// through "..", compared by device and inode with the store's folder.
void refuseInside(const std::string& path, const Folder& store)
{
    struct stat root {};
    if (::fstat(store.fd(), &root) != 0)
        failErrno(store.path(), "cannot stat the store's folder");
    const std::string parent = parentOf(path);
    const Folder start = Folder::open(parent);
    int fd = ::fcntl(start.fd(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        failErrno(parent, "cannot look at the output's folder");
    File holder = File::adopt(fd, parent);
    struct stat here {};
    if (::fstat(fd, &here) != 0)
        failErrno(parent, "cannot stat the output's folder");
    for (int depth = 0; depth < 4096; ++depth) {
        if (sameFolder(here, root))
            fail(path, "lies inside the store " + store.path()
                           + ", which this command has open; an output never goes into a store's folder "
                             "(it could replace the store's own files): name a file outside it");
        const int up = ::openat(holder.fd(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (up < 0)
            failErrno(parent, "cannot look at the folders above the output");
        File next = File::adopt(up, parent + "/..");
        struct stat above {};
        if (::fstat(up, &above) != 0)
            failErrno(parent, "cannot stat the folders above the output");
        if (sameFolder(above, here))
            return;   // the root of the file system
        holder = std::move(next);
        here = above;
    }
}

} // namespace

void OutputFile::forceNamedTemp(bool on) { namedTempOnly = on; }

std::optional<pid_t> OutputFile::tempWriterOf(const std::string& name, const std::string& target)
{
    const std::string head = tempHead(target);
    if (name.size() <= head.size() || name.compare(0, head.size(), head) != 0)
        return std::nullopt;
    const size_t dash = name.find('-', head.size());
    if (dash == std::string::npos || dash == head.size() || dash - head.size() > 10
        || name.size() != dash + 1 + kTempHexDigits)
        return std::nullopt;
    uint64_t pid = 0;
    for (size_t i = head.size(); i < dash; ++i) {
        if (name[i] < '0' || name[i] > '9')
            return std::nullopt;
        pid = pid * 10 + uint64_t(name[i] - '0');
    }
    if (pid == 0 || pid > uint64_t(std::numeric_limits<pid_t>::max())
        || name.find_first_not_of("0123456789abcdef", dash + 1) != std::string::npos)
        return std::nullopt;
    return pid_t(pid);
}

OutputFile::~OutputFile() { discard(); }

OutputFile::OutputFile(OutputFile&& o) noexcept { *this = std::move(o); }

OutputFile& OutputFile::operator=(OutputFile&& o) noexcept
{
    if (this != &o) {
        discard();
        kind_ = o.kind_;
        seekable_ = o.seekable_;
        blockDevice_ = o.blockDevice_;
        committed_ = std::exchange(o.committed_, true);
        nonBlockingPipe_ = o.nonBlockingPipe_;
        cancelCheck_ = std::move(o.cancelCheck_);
        file_ = std::move(o.file_);
        path_ = std::move(o.path_);
        folder_ = std::move(o.folder_);
        name_ = std::move(o.name_);
        tempName_ = std::move(o.tempName_);
        finalMode_ = o.finalMode_;
    }
    return *this;
}

void OutputFile::discard() noexcept
{
    if (committed_)
        return;
    committed_ = true;
    // An O_TMPFILE temp has no name: closing it frees it.
    if (folder_ && !tempName_.empty())
        ::unlinkat(folder_->fd(), tempName_.c_str(), 0);
    try {
        file_.close();
    } catch (...) {
    }
}

OutputFile OutputFile::open(const std::string& path, std::function<void()> cancelCheck, const Folder* keepOutOf)
{
    OutputFile out;
    out.path_ = path;
    out.cancelCheck_ = std::move(cancelCheck);
    if (path.empty())
        throw Error("the output path is empty");
    if (isStdoutName(path)) {
        const int fd = ::fcntl(1, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            failErrno(path, "standard output is not open");
        out.kind_ = Kind::Stdout;
        out.file_ = File::adopt(fd, "standard output");
        return out;
    }
    if (keepOutOf)
        refuseInside(path, *keepOutOf);
    struct stat st {};
    bool exists = ::lstat(path.c_str(), &st) == 0;
    if (!exists && errno != ENOENT)
        failErrno(path, "cannot look at the output");
    if (exists && S_ISLNK(st.st_mode)) {
        struct stat target {};
        const bool resolves = ::stat(path.c_str(), &target) == 0;
        if (!resolves || S_ISREG(target.st_mode) || S_ISDIR(target.st_mode))
            fail(path, std::string("is a symbolic link to ") + (resolves ? kindName(target.st_mode) : "nothing")
                           + "; cachescope neither writes through it nor replaces the link: name the file itself, "
                             "or remove the link first");
    }
    if (exists && S_ISDIR(st.st_mode))
        fail(path, "is a folder; name a file to write");
    if (exists && !S_ISREG(st.st_mode)) {
        // A device, FIFO or socket (directly or through a link): written where
        // it is. No O_CREAT, no O_TRUNC; a FIFO waits here until a reader
        // comes (or cancelCheck throws).
        const int fd = openInPlace(path, S_ISLNK(st.st_mode), out.cancelCheck_);
        File f = File::adopt(fd, path);
        struct stat now {};
        if (::fstat(fd, &now) != 0)
            failErrno(path, "cannot stat");
        if (S_ISREG(now.st_mode) || S_ISDIR(now.st_mode))
            fail(path, "changed into a regular file while it was being opened; not written");
        // A FIFO stays non-blocking (writeAll waits for room, cancellably);
        // a device gets the blocking writes it was made for.
        out.nonBlockingPipe_ = S_ISFIFO(now.st_mode);
        if (!out.nonBlockingPipe_)
            f.setBlocking();
        out.kind_ = Kind::InPlace;
        out.blockDevice_ = S_ISBLK(now.st_mode);
        out.seekable_ = out.blockDevice_;
        out.file_ = std::move(f);
        return out;
    }
    // A regular file or nothing: a temp file beside it, renamed on commit().
    const auto slash = path.rfind('/');
    const std::string parent = parentOf(path);
    out.name_ = slash == std::string::npos ? path : path.substr(slash + 1);
    if (out.name_.empty() || out.name_ == "." || out.name_ == "..")
        fail(path, "does not name a file");
    out.folder_ = std::make_unique<Folder>(Folder::open(parent));
    out.finalMode_ = exists ? int(st.st_mode & 07777) : int(0666 & ~currentUmask());
    int fd = -1;
    if (!namedTempOnly) {
        fd = ::openat(out.folder_->fd(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
            failErrno(parent, "cannot create a temporary file in the output's folder");
    }
    for (int attempt = 0; fd < 0 && attempt < 16; ++attempt) {
        out.tempName_ = tempNameFor(out.name_);
        fd = ::openat(out.folder_->fd(), out.tempName_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      0600);
        if (fd < 0 && errno != EEXIST)
            failErrno(out.folder_->pathOf(out.tempName_), "cannot create a temporary file for " + path);
    }
    if (fd < 0)
        fail(parent, "cannot find a free temporary file name");
    out.kind_ = Kind::Replace;
    out.seekable_ = true;
    out.file_ = File::adopt(fd, path);
    return out;
}

void refuseOutputInside(const std::string& path, const Folder& folder)
{
    if (!isStdoutName(path))
        refuseInside(path, folder);
}

OutputFile OutputFile::openIn(const Folder& folder, const std::string& name, int finalMode, Temp temp)
{
    const Folder::Kind k = folder.kindOf(name);
    if (k == Folder::Kind::Link)
        fail(folder.pathOf(name), "is a symbolic link, and cachescope never writes through or replaces links in a "
                                  "store (remove the link)");
    if (k != Folder::Kind::File && k != Folder::Kind::Missing)
        fail(folder.pathOf(name), "is not a regular file; not replaced");
    OutputFile out;
    out.path_ = folder.pathOf(name);
    out.name_ = name;
    out.folder_ = std::make_unique<Folder>(folder.duplicate());
    out.finalMode_ = finalMode;
    int fd = -1;
    if (!namedTempOnly && temp == Temp::Anonymous) {
        fd = ::openat(folder.fd(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
            failErrno(folder.path(), "cannot create a temporary file");
    }
    for (int attempt = 0; fd < 0 && attempt < 16; ++attempt) {
        out.tempName_ = tempNameFor(name);
        fd = ::openat(folder.fd(), out.tempName_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            failErrno(folder.pathOf(out.tempName_), "cannot create a temporary file");
    }
    if (fd < 0)
        fail(folder.path(), "cannot find a free temporary file name");
    out.kind_ = Kind::Replace;
    out.seekable_ = true;
    out.file_ = File::adopt(fd, out.path_);
    return out;
}

void OutputFile::writeAll(const void* data, size_t size)
{
    if (!nonBlockingPipe_) {
        file_.writeAll(data, size);
        return;
    }
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(file_.fd(), p, size);
        if (n >= 0) {
            p += n;
            size -= size_t(n);
        } else if (errno == EAGAIN) {
            waitForRoom();
        } else if (errno != EINTR) {
            failErrno(path_, "write failed");
        }
    }
}

// The pipe is full: its reader is slow or stopped. Wait for room, 100 ms at
// a time, so that a cancel (Ctrl-C) is seen; a reader that went away shows
// as POLLERR and the next write fails with EPIPE.
void OutputFile::waitForRoom()
{
    for (;;) {
        if (cancelCheck_)
            cancelCheck_();
        pollfd p{file_.fd(), POLLOUT, 0};
        const int r = ::poll(&p, 1, kWaitSliceMs);
        if (r > 0)
            return;
        if (r < 0 && errno != EINTR)
            failErrno(path_, "cannot wait to write");
    }
}

void OutputFile::commit(Sync sync)
{
    if (committed_)
        throw Error(path_ + ": internal error: output committed twice");
    if (kind_ != Kind::Replace) {
        // Pipes, terminals and character devices cannot be synced; that is fine.
        if (::fsync(file_.fd()) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
            failErrno(path_, "fsync failed");
        file_.close();
        committed_ = true;
        return;
    }
    if (::fchmod(file_.fd(), mode_t(finalMode_)) != 0)
        failErrno(path_, "cannot set the permissions of the new file");
    if (sync == Sync::Now)
        file_.sync();
    else
        ::sync_file_range(file_.fd(), 0, 0, SYNC_FILE_RANGE_WRITE);   // a hint: its failure is the later fdatasync's
    if (tempName_.empty()) {
        // O_TMPFILE: give it a (random, fresh) name first; linkat never
        // replaces nor follows what is at the new name.
        const std::string self = "/proc/self/fd/" + std::to_string(file_.fd());
        for (int attempt = 0; tempName_.empty() && attempt < 16; ++attempt) {
            const std::string candidate = tempNameFor(name_);
            int rc = ::linkat(AT_FDCWD, self.c_str(), folder_->fd(), candidate.c_str(), AT_SYMLINK_FOLLOW);
            if (rc != 0 && errno == ENOENT)   // no /proc: needs CAP_DAC_READ_SEARCH
                rc = ::linkat(file_.fd(), "", folder_->fd(), candidate.c_str(), AT_EMPTY_PATH);
            if (rc == 0)
                tempName_ = candidate;
            else if (errno != EEXIST)
                failErrno(path_, "cannot give the new file a name in its folder");
        }
        if (tempName_.empty())
            fail(folder_->path(), "cannot find a free temporary file name");
    }
    file_.close();
    if (::renameat(folder_->fd(), tempName_.c_str(), folder_->fd(), name_.c_str()) != 0)
        failErrno(path_, "cannot move the new file into place");
    tempName_.clear();
    committed_ = true;
    if (sync == Sync::Now)
        folder_->sync();
}

bool writesToStandardOutput(const std::string& path)
{
    if (isStdoutName(path))
        return true;
    struct stat target {}, out {};
    return ::stat(path.c_str(), &target) == 0 && ::fstat(1, &out) == 0 && target.st_dev == out.st_dev
        && target.st_ino == out.st_ino;
}

void keepSummaryOutOfData(const std::string& outPath)
{
    if (!writesToStandardOutput(outPath))
        return;
    std::fflush(stdout);
    ::dup2(2, 1);
}

void writeFileAtomic(const std::string& path, const std::string& contents)
{
    OutputFile out = OutputFile::open(path);
    out.writeAll(contents.data(), contents.size());
    out.commit();
}

void writeFileAtomic(const Folder& folder, const std::string& name, const std::string& contents)
{
    OutputFile out = OutputFile::openIn(folder, name);
    out.writeAll(contents.data(), contents.size());
    out.commit();
}

} // namespace cs
