#include "core/entries/EntryBlob.h"

#include "core/util/Error.h"
#include "core/util/Escape.h"

#include <algorithm>

namespace cs::entries {

std::string entryName(const actions::ActionsEntry& e)
{
    return "entry " + escapeControl(e.id) + " ('" + escapeControl(e.key) + "')";
}

EntryBlob::EntryBlob(actions::ActionsStorage& storage, const actions::ActionsEntry& entry)
    : storage_(storage), entry_(entry), name_(entryName(entry))
{
    if (!entry.hasLocation)
        fail(name_, "its storage location row is missing, so it has no blob to read");
    if (entry.folderName.empty())
        fail(name_, "its storage location names no folder");
    const actions::FolderListing l = storage.listFolder(entry.folderName);
    if (entry.merged()) {
        if (!l.mergedSize)
            fail(name_, storage.objectName(entry.folderName, "merged") +
                            " is missing although the entry is marked merged");
        pieces_.push_back({true, 0, 0, *l.mergedSize});
        size_ = *l.mergedSize;
        return;
    }
    if (entry.partsDeletedAtMs)
        fail(name_, "its parts were deleted without a merge: nothing is left to read");
    // The parts below partCount, in order, from the listing: a claimed count
    // of millions is compared, never looped to.
    const uint64_t claimed = entry.partCount > 0 ? uint64_t(entry.partCount) : 0;
    uint64_t expected = 0;
    for (const auto& p : l.parts) {
        if (p.index >= claimed)
            break;
        if (p.index != expected)
            break;
        pieces_.push_back({false, p.index, size_, p.size});
        size_ += p.size;
        ++expected;
    }
    if (expected < claimed)
        fail(name_, storage.objectName(entry.folderName, "parts/" + std::to_string(expected)) + " is missing (the "
                        "entry claims " + std::to_string(claimed) + " parts), so its blob cannot be read past offset " +
                        std::to_string(size_));
}

std::unique_ptr<BlobReader> EntryBlob::open(uint64_t offset) const
{
    return std::make_unique<BlobReader>(*this, std::min(offset, size_));
}

BlobReader::BlobReader(const EntryBlob& blob, uint64_t offset) : blob_(blob)
{
    skip(offset);
}

BlobReader::~BlobReader() = default;

std::string BlobReader::objectPath(size_t piece) const
{
    const auto& p = blob_.pieces()[piece];
    return blob_.storage().objectName(blob_.entry().folderName,
                                      p.merged ? std::string("merged") : "parts/" + std::to_string(p.partIndex));
}

void BlobReader::openPieceAt(size_t piece, uint64_t within)
{
    const auto& p = blob_.pieces()[piece];
    auto& storage = blob_.storage();
    object_ = p.merged ? storage.openMerged(blob_.entry().folderName)
                       : storage.openPart(blob_.entry().folderName, p.partIndex);
    if (object_->size() != p.size)
        failAt(blob_.name(), p.offset,
               objectPath(piece) + " holds " + std::to_string(object_->size()) + " bytes now; the listing said " +
                   std::to_string(p.size) + " (it changed while being read)");
    if (within > 0)
        object_->skip(within);
    objectLeft_ = p.size - within;
}

size_t BlobReader::read(void* buf, size_t n)
{
    const auto& pieces = blob_.pieces();
    while (n > 0 && piece_ < pieces.size()) {
        if (!object_) {
            openPieceAt(piece_, pendingSkip_);
            pendingSkip_ = 0;
        }
        if (objectLeft_ == 0) {
            object_.reset();
            ++piece_;
            continue;
        }
        const size_t got = object_->read(buf, size_t(std::min<uint64_t>(n, objectLeft_)));
        if (got == 0)
            failAt(blob_.name(), offset_,
                   objectPath(piece_) + " ended " + std::to_string(objectLeft_) +
                       " bytes before the size its listing gave");
        objectLeft_ -= got;
        offset_ += got;
        return got;
    }
    return 0;
}

void BlobReader::skip(uint64_t n)
{
    const auto& pieces = blob_.pieces();
    n = std::min(n, blob_.size() - offset_);
    while (n > 0 && piece_ < pieces.size()) {
        const auto& p = pieces[piece_];
        const uint64_t within = offset_ - p.offset;
        const uint64_t left = p.size - within;
        if (n < left) {
            if (object_) {
                object_->skip(n);
                objectLeft_ -= n;
            } else {
                pendingSkip_ = within + n;
            }
            offset_ += n;
            return;
        }
        // Past this piece: the next one opens when it is read.
        object_.reset();
        offset_ += left;
        n -= left;
        ++piece_;
        pendingSkip_ = 0;
    }
}

size_t readFully(ByteStream& in, void* buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        const size_t got = in.read(static_cast<char*>(buf) + done, n - done);
        if (got == 0)
            break;
        done += got;
    }
    return done;
}

} // namespace cs::entries
