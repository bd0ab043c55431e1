// Shared by the libFuzzer targets in tests/fuzz/: a scratch folder for the
// files a target builds from its input (the readers under test open paths),
// and the rule every target follows: cs::Error is the expected answer to a
// bad input; anything else (another exception, a crash, a sanitizer report,
// an allocation past libFuzzer's -rss_limit_mb) is a finding.
#pragma once
#include "core/util/Error.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fuzz {

// One folder per process, under $TMPDIR (or /tmp), made on first use.
inline const std::string& scratch()
{
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/cachescope-fuzz-XXXXXX";
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a scratch folder");
        return pattern;
    }();
    return dir;
}

// Replaces path with exactly these bytes.
inline void writeBytes(const std::string& path, const uint8_t* data, size_t size)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        throw std::runtime_error("cannot create " + path);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0) {
            ::close(fd);
            throw std::runtime_error("cannot write " + path);
        }
        done += size_t(n);
    }
    ::close(fd);
}

// Runs fn; a cs::Error (bad input, said in one sentence) is a pass.
template <typename Fn> void expectErrorOrSuccess(Fn&& fn)
{
    try {
        fn();
    } catch (const cs::Error& e) {
        if (std::string(e.what()).empty())
            std::abort();  // an error must say something
    }
}

} // namespace fuzz
