// An advisory lock on a file (flock), held for the object's lifetime. Locks
// between processes; within one process the holders must also share a mutex,
// since flock locks belong to the open file description.
#pragma once
#include <string>

namespace cs { class Folder; }

namespace cs {

class FileLock {
public:
    enum Mode { Shared, Exclusive };
    // Blocks until the lock is held.
    FileLock(const std::string& path, Mode mode);
    // Returns an unheld lock when another process holds it.
    static FileLock tryLock(const std::string& path, Mode mode);
    // The lock file name in folder, opened without following links.
    FileLock(const Folder& folder, const std::string& name, Mode mode);
    static FileLock tryLock(const Folder& folder, const std::string& name, Mode mode);
    ~FileLock();
    FileLock(FileLock&& o) noexcept;
    FileLock& operator=(FileLock&& o) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    bool held() const { return fd_ >= 0; }
    void release();

private:
    FileLock() = default;
    void take(const std::string& path, Mode mode);
    int fd_ = -1;
};

} // namespace cs
