// Byte-exact checks of the benchmarks' outputs by the stock `sha256sum`
// (independent of core's Sha256), run outside the timed commands.
#pragma once
#include <cstdio>
#include <string>

namespace bench {

// The SHA-256 of path as `sha256sum` prints it (64 hex digits), or an empty
// string when it could not be computed.
inline std::string sha256sum(const std::string& path)
{
    if (path.find('\'') != std::string::npos)
        return {};
    FILE* p = ::popen(("sha256sum -b -- '" + path + "'").c_str(), "r");
    if (!p)
        return {};
    char buf[65] = {};
    const size_t n = std::fread(buf, 1, 64, p);
    int c;
    while ((c = std::fgetc(p)) != EOF) {
    }
    const int status = ::pclose(p);
    if (n != 64 || status != 0)
        return {};
    return std::string(buf, 64);
}

// True when path exists and its SHA-256 is expectedDigest (a sha256sum()
// result; an empty one never matches).
inline bool sameSha256(const std::string& expectedDigest, const std::string& path)
{
    return !expectedDigest.empty() && sha256sum(path) == expectedDigest;
}

} // namespace bench
