#include "core/util/Error.h"

#include <cerrno>
#include <cstring>

namespace cs {

void fail(const std::string& path, const std::string& what)
{
    throw Error(path + ": " + what);
}

void failAt(const std::string& path, uint64_t offset, const std::string& what)
{
    throw Error(path + " at offset " + std::to_string(offset) + ": " + what);
}

void failErrno(const std::string& path, const std::string& what)
{
    const int err = errno;
    throw Error(path + ": " + what + ": " + std::strerror(err));
}

} // namespace cs
