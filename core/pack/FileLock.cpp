#include "core/pack/FileLock.h"

#include "core/util/Error.h"
#include "core/util/Folder.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <utility>

namespace cs {

static int openLockFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        failErrno(path, "cannot open lock file");
    return fd;
}

FileLock::FileLock(const std::string& path, Mode mode) : fd_(openLockFile(path))
{
    take(path, mode);
}

FileLock::FileLock(const Folder& folder, const std::string& name, Mode mode)
{
    File f = folder.openFile(name, O_RDWR | O_CREAT);
    fd_ = ::fcntl(f.fd(), F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0)
        failErrno(f.path(), "cannot open lock file");
    take(f.path(), mode);
}

FileLock FileLock::tryLock(const Folder& folder, const std::string& name, Mode mode)
{
    FileLock l;
    File f = folder.openFile(name, O_RDWR | O_CREAT);
    l.fd_ = ::fcntl(f.fd(), F_DUPFD_CLOEXEC, 0);
    if (l.fd_ < 0)
        failErrno(f.path(), "cannot open lock file");
    if (::flock(l.fd_, (mode == Shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        ::close(l.fd_);
        l.fd_ = -1;
    }
    return l;
}

void FileLock::take(const std::string& path, Mode mode)
{
    while (::flock(fd_, mode == Shared ? LOCK_SH : LOCK_EX) != 0) {
        if (errno != EINTR) {
            ::close(fd_);
            fd_ = -1;
            failErrno(path, "cannot take lock");
        }
    }
}

FileLock FileLock::tryLock(const std::string& path, Mode mode)
{
    FileLock l;
    l.fd_ = openLockFile(path);
    if (::flock(l.fd_, (mode == Shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        ::close(l.fd_);
        l.fd_ = -1;
    }
    return l;
}

FileLock::~FileLock()
{
    release();
}

FileLock::FileLock(FileLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& o) noexcept
{
    if (this != &o) {
        release();
        fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
}

void FileLock::release()
{
    if (fd_ >= 0)
        ::close(std::exchange(fd_, -1)); // closing drops the flock
}

} // namespace cs
