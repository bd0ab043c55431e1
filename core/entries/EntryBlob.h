// The stored bytes of a github-actions-cache-server entry (its "blob"), read
// front to back on any backend: the merged object once mergedAt is set,
// else the parts 0..partCount-1 concatenated in numeric order (part 10 after
// 9). The pieces and their sizes come from ONE listing of the entry's
// folder; each object is opened only when the reader reaches it (S3: ranged
// GETs of a bounded window through ActionsStorage/ObjectReader), and each
// must end exactly at its listed size. Memory: one object reader, whatever
// the blob's size or part count. Reads only.
//
// Errors (cs::Error) name the entry ("entry 5f0c... ('node-cache-Linux-x64')")
// and the blob offset; the object's own path or URL is in the sentence too.
#pragma once
#include "core/actions-cache/ActionsBackend.h"
#include "core/actions-cache/ActionsCache.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cs::entries {

// A forward-only stream of bytes: the blob, or a decoder over it.
class ByteStream {
public:
    virtual ~ByteStream() = default;
    // Up to n bytes; 0 only at the end. Throws cs::Error on a read error.
    virtual size_t read(void* buf, size_t n) = 0;
    // Bytes handed out so far (the offset of the next byte).
    virtual uint64_t offset() const = 0;
};

// "entry ID ('KEY')", the name every error about an entry starts with.
std::string entryName(const actions::ActionsEntry& e);

// Which objects make an entry's blob, in order, checked against one listing.
class EntryBlob {
public:
    struct Piece {
        bool merged = false;     // <folder>/merged, else <folder>/parts/<partIndex>
        uint64_t partIndex = 0;
        uint64_t offset = 0;     // in the blob
        uint64_t size = 0;       // from the listing
    };

    // Throws cs::Error naming the entry when its blob cannot be read: no
    // location, a folder that cannot be listed, mergedAt without a merged
    // object, a missing part below partCount, parts deleted without a merge.
    EntryBlob(actions::ActionsStorage& storage, const actions::ActionsEntry& entry);

    const std::string& name() const { return name_; }
    const actions::ActionsEntry& entry() const { return entry_; }
    uint64_t size() const { return size_; }
    const std::vector<Piece>& pieces() const { return pieces_; }
    actions::ActionsStorage& storage() const { return storage_; }

    // A reader positioned at offset (<= size()). Several may be open at once.
    std::unique_ptr<class BlobReader> open(uint64_t offset = 0) const;

private:
    actions::ActionsStorage& storage_;
    actions::ActionsEntry entry_;
    std::string name_;
    std::vector<Piece> pieces_;
    uint64_t size_ = 0;
};

// One pass over a blob from some offset on.
class BlobReader final : public ByteStream {
public:
    BlobReader(const EntryBlob& blob, uint64_t offset);
    ~BlobReader() override;
    size_t read(void* buf, size_t n) override;
    uint64_t offset() const override { return offset_; }
    // Moves forward n bytes (at most to the end) without reading them where
    // the storage can (a file seeks; S3 starts its next GET further on).
    void skip(uint64_t n);
    uint64_t size() const { return blob_.size(); }

private:
    void openPieceAt(size_t piece, uint64_t within);
    std::string objectPath(size_t piece) const;
    const EntryBlob& blob_;
    size_t piece_ = 0;                              // current piece
    uint64_t offset_ = 0;                           // in the blob
    std::unique_ptr<actions::ObjectReader> object_; // the current piece, opened lazily
    uint64_t objectLeft_ = 0;                       // bytes of it still to come
    uint64_t pendingSkip_ = 0;                      // skipped before it was opened
};

// Fills buf completely unless the stream ends first; returns the bytes read.
size_t readFully(ByteStream& in, void* buf, size_t n);

} // namespace cs::entries
