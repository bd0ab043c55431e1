#include "core/snapshot/SnapshotInternal.h"

#include "core/util/Error.h"

#include <cerrno>
#include <unistd.h>

namespace cs::snapshot {

SparseScan::SparseScan(int fd, uint64_t size, std::string path, uint64_t minHole)
    : fd_(fd), size_(size), path_(std::move(path)), minHole_(minHole)
{
}

uint64_t SparseScan::nextData(uint64_t pos)
{
    if (!supported_ || pos >= size_)
        return pos >= size_ ? size_ : pos;
    const off_t r = ::lseek(fd_, off_t(pos), SEEK_DATA);
    if (r < 0) {
        if (errno == ENXIO)
            return size_;  // only a hole up to the end
        if (errno == EINVAL || errno == EOPNOTSUPP) {
            supported_ = false;
            return pos;
        }
        failErrno(path_ + " at offset " + std::to_string(pos), "cannot look for data (SEEK_DATA)");
    }
    return std::min<uint64_t>(uint64_t(r), size_);
}

uint64_t SparseScan::nextHole(uint64_t pos)
{
    if (!supported_ || pos >= size_)
        return size_;
    const off_t r = ::lseek(fd_, off_t(pos), SEEK_HOLE);
    if (r < 0) {
        if (errno == ENXIO)
            return size_;
        if (errno == EINVAL || errno == EOPNOTSUPP) {
            supported_ = false;
            return size_;
        }
        failErrno(path_ + " at offset " + std::to_string(pos), "cannot look for holes (SEEK_HOLE)");
    }
    return std::min<uint64_t>(uint64_t(r), size_);
}

Extent SparseScan::extentAt(uint64_t pos)
{
    const uint64_t data = nextData(pos);
    if (data > pos && (data - pos >= minHole_ || data == size_))
        return {pos, data - pos, true};
    // Data (or a short hole treated as data): extend over short holes.
    uint64_t end = nextHole(data > pos ? data : pos);
    while (end < size_) {
        const uint64_t d = nextData(end);
        if (d >= size_ || d - end >= minHole_)
            break;
        end = nextHole(d);
    }
    return {pos, end - pos, false};
}

} // namespace cs::snapshot
