// A file descriptor that owns itself, with reads that say which file and
// offset failed. Positional reads (pread) so several threads can share one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace cs {

class File {
public:
    File() = default;
    ~File();
    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;

    static File openRead(const std::string& path);
    // Creates or truncates.
    static File create(const std::string& path, int mode = 0644);
    // Opens for appending writes at the end (creates when missing).
    static File openAppend(const std::string& path);
    static File openReadWrite(const std::string& path);
    // Takes ownership of an open descriptor; path names it in errors.
    static File adopt(int fd, std::string path) { return File(fd, std::move(path)); }

    bool isOpen() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    uint64_t size() const;

    // Reads exactly size bytes at offset or throws "<path> at offset N: ...".
    void readAt(void* buf, size_t size, uint64_t offset) const;
    // Reads up to size bytes at offset; returns how many (short at end of file).
    size_t readSomeAt(void* buf, size_t size, uint64_t offset) const;
    // Sequential read from the current position; 0 at end of file.
    size_t readSome(void* buf, size_t size);
    void writeAll(const void* buf, size_t size);
    void writeAt(const void* buf, size_t size, uint64_t offset);
    void truncate(uint64_t size);
    // Clears O_NONBLOCK, set to open a FIFO or device without waiting, so
    // that reads and writes block again; throws "<path>: cannot switch to
    // blocking I/O".
    void setBlocking() const;
    void sync();
    void syncData();   // fdatasync: the bytes and what reading them needs (size, extents)
    void close();

private:
    File(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    static File openWith(const std::string& path, int flags, int mode, const char* what);
    int fd_ = -1;
    std::string path_;
};

// pwrite(2) of all size bytes at offset, retrying short writes and EINTR.
// false with errno set when a write fails (the caller names the file).
bool pwriteAll(int fd, const void* buf, size_t size, uint64_t offset);

void syncDirectory(const std::string& dir);
std::string readWholeFile(const std::string& path, size_t maxSize);

} // namespace cs
