#include "core/util/File.h"

#include "core/util/Error.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>


namespace cs {

File::~File()
{
    if (fd_ >= 0)
        ::close(fd_);
}

File::File(File&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

File& File::operator=(File&& other) noexcept
{
    if (this != &other) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

File File::openWith(const std::string& path, int flags, int mode, const char* what)
{
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
    if (fd < 0)
        failErrno(path, what);
    return File(fd, path);
}

File File::openRead(const std::string& path) { return openWith(path, O_RDONLY, 0, "cannot open for reading"); }
File File::create(const std::string& path, int mode) { return openWith(path, O_WRONLY | O_CREAT | O_TRUNC, mode, "cannot create"); }
File File::openAppend(const std::string& path) { return openWith(path, O_WRONLY | O_CREAT | O_APPEND, 0644, "cannot open for appending"); }
File File::openReadWrite(const std::string& path) { return openWith(path, O_RDWR | O_CREAT, 0644, "cannot open for writing"); }

uint64_t File::size() const
{
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
        failErrno(path_, "cannot stat");
    return uint64_t(st.st_size);
}

size_t File::readSomeAt(void* buf, size_t size, uint64_t offset) const
{
    size_t done = 0;
    auto* p = static_cast<char*>(buf);
    while (done < size) {
        const ssize_t n = ::pread(fd_, p + done, size - done, off_t(offset + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            failErrno(path_ + " at offset " + std::to_string(offset + done), "read failed");
        }
        if (n == 0)
            break;
        done += size_t(n);
    }
    return done;
}

void File::readAt(void* buf, size_t size, uint64_t offset) const
{
    const size_t n = readSomeAt(buf, size, offset);
    if (n != size)
        failAt(path_, offset + n, "file ends early (wanted " + std::to_string(size) + " bytes at offset "
                                      + std::to_string(offset) + ")");
}

size_t File::readSome(void* buf, size_t size)
{
    for (;;) {
        const ssize_t n = ::read(fd_, buf, size);
        if (n >= 0)
            return size_t(n);
        if (errno != EINTR)
            failErrno(path_, "read failed");
    }
}

void File::writeAll(const void* buf, size_t size)
{
    const auto* p = static_cast<const char*>(buf);
    while (size > 0) {
        const ssize_t n = ::write(fd_, p, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            failErrno(path_, "write failed");
        }
        p += n;
        size -= size_t(n);
    }
}

bool pwriteAll(int fd, const void* buf, size_t size, uint64_t offset)
{
    const auto* p = static_cast<const char*>(buf);
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, p, size, off_t(offset));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += n;
        size -= size_t(n);
        offset += uint64_t(n);
    }
    return true;
}

void File::writeAt(const void* buf, size_t size, uint64_t offset)
{
    if (!pwriteAll(fd_, buf, size, offset))
        failErrno(path_ + " at offset " + std::to_string(offset), "write failed");
}

void File::truncate(uint64_t size)
{
    if (::ftruncate(fd_, off_t(size)) != 0)
        failErrno(path_, "cannot truncate");
}

void File::setBlocking() const
{
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0)
        failErrno(path_, "cannot switch to blocking I/O");
}

void File::sync()
{
    if (::fsync(fd_) != 0)
        failErrno(path_, "fsync failed");
}

void File::syncData()
{
    if (::fdatasync(fd_) != 0)
        failErrno(path_, "fdatasync failed");
}

void File::close()
{
    if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0)
        failErrno(path_, "close failed");
}

void syncDirectory(const std::string& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        failErrno(dir, "cannot open folder to sync it");
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0)
        failErrno(dir, "fsync of folder failed");
}

std::string readWholeFile(const std::string& path, size_t maxSize)
{
    File f = File::openRead(path);
    const uint64_t size = f.size();
    if (size > maxSize)
        fail(path, "is " + std::to_string(size) + " bytes, more than the " + std::to_string(maxSize) + " expected");
    std::string s(size_t(size), '\0');
    f.readAt(s.data(), s.size(), 0);
    return s;
}

} // namespace cs
