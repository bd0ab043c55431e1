#include "core/entries/BlobFrameSource.h"

namespace cs::entries {

size_t BlobFrameSource::readSomeAt(void* buf, size_t n, uint64_t offset)
{
    if (offset >= blob_.size())
        return 0;
    // The cursor closest behind offset; else the one used longest ago, reopened.
    int pick = -1;
    for (int i = 0; i < 2; ++i)
        if (cursors_[i] && cursors_[i]->offset() <= offset &&
            (pick < 0 || cursors_[i]->offset() > cursors_[pick]->offset()))
            pick = i;
    if (pick < 0) {
        pick = 1 - lastUsed_;
        cursors_[pick] = blob_.open(offset);
    }
    lastUsed_ = pick;
    BlobReader& r = *cursors_[pick];
    r.skip(offset - r.offset());
    return readFully(r, buf, n);
}

} // namespace cs::entries
