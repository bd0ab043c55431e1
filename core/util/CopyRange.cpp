#include "core/util/CopyRange.h"

#include "core/util/Error.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

namespace cs {

namespace {

// Through a buffer of at most 1 MiB.
void readWrite(const File& from, uint64_t fromPos, File& to, uint64_t toPos, uint64_t size)
{
    const size_t block = size_t(std::min<uint64_t>(size, 1u << 20));
    std::unique_ptr<uint8_t[]> buf(new uint8_t[block]);
    while (size > 0) {
        const size_t want = size_t(std::min<uint64_t>(block, size));
        from.readAt(buf.get(), want, fromPos);
        to.writeAt(buf.get(), want, toPos);
        fromPos += want;
        toPos += want;
        size -= want;
    }
}

bool unsupported(int e)
{
    return e == EXDEV || e == EINVAL || e == ENOSYS || e == EOPNOTSUPP || e == ENOTSUP;
}

} // namespace

void copyRange(const File& from, uint64_t fromPos, File& to, uint64_t toPos, uint64_t size, CopyWith with)
{
    while (with == CopyWith::Kernel && size > 0) {
        loff_t in = loff_t(fromPos), out = loff_t(toPos);
        // At most 1 GiB a call: a signal or a cancel never waits on more.
        const ssize_t n = ::copy_file_range(from.fd(), &in, to.fd(), &out, size_t(std::min<uint64_t>(size, 1u << 30)), 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (unsupported(errno))
                break;
            // ENOSPC, EIO, ...: which file is at fault is not told; name both.
            failErrno(from.path() + " at offset " + std::to_string(fromPos) + " to " + to.path() + " at offset "
                          + std::to_string(toPos),
                      "copy failed");
        }
        if (n == 0)
            break; // the source ends here, or a file system that copies nothing: readWrite tells which
        fromPos += uint64_t(n);
        toPos += uint64_t(n);
        size -= uint64_t(n);
    }
    if (size > 0)
        readWrite(from, fromPos, to, toPos, size);
}

} // namespace cs
