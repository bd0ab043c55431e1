// An entry's blob as a FrameSource (core/frames/FrameLayout.h), so the frame
// scan reads the blob where it lies (merged object or parts, a file or S3)
// without a temporary copy. The scan reads forward from the start, with a
// second cursor for the seek table at the tail: two BlobReaders, each moved
// forward by skip() (a seek, or S3's next ranged GET further on), reopened
// only to go back.
#pragma once
#include "core/entries/EntryBlob.h"
#include "core/frames/FrameLayout.h"

#include <memory>

namespace cs::entries {

class BlobFrameSource final : public FrameSource {
public:
    explicit BlobFrameSource(const EntryBlob& blob) : blob_(blob) {}
    uint64_t size() const override { return blob_.size(); }
    size_t readSomeAt(void* buf, size_t n, uint64_t offset) override;

private:
    const EntryBlob& blob_;
    std::unique_ptr<BlobReader> cursors_[2];
    int lastUsed_ = 0;
};

} // namespace cs::entries
