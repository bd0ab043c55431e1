// Errors of the core: one sentence a user can act on, naming the file and,
// where there is one, the byte offset ("snap.zst: frame 3 at offset 8388621:
// block header claims 2 MiB, larger than the 128 KiB maximum").
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cs {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Thrown by Job::checkCancel(); callers undo partial work and rethrow.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

// "<path>: <what>" and "<path> at offset N: <what>".
[[noreturn]] void fail(const std::string& path, const std::string& what);
[[noreturn]] void failAt(const std::string& path, uint64_t offset, const std::string& what);
// "<path>: <what>: <strerror(errno)>" for a failed system call.
[[noreturn]] void failErrno(const std::string& path, const std::string& what);

} // namespace cs
