#include "core/gc/GenerationReader.h"

#include "core/util/CopyRange.h"
#include "core/util/Error.h"

#include <algorithm>

namespace cs::gc {

namespace {
constexpr uint64_t kMinWindow = 64u << 10;
constexpr uint64_t kProbeBytes = 4u << 10;      // a chunk's header is 52 bytes, a node's 24 + 16 per child
constexpr uint64_t kSmallObject = 16u << 10;    // larger objects are copied inside the kernel
}

GenerationReader::GenerationReader(std::shared_ptr<const pack::Generation> g, uint64_t windowBytes)
    : g_(std::move(g)), suffixSize_(g_->suffix.size()), windowBytes_(std::max(windowBytes, kMinWindow)),
      ahead_(windowBytes_ / 16), behindBytes_(kMinWindow)
{
}

GenerationReader::Where GenerationReader::locate(uint64_t offset) const
{
    const auto& c = g_->control;
    if (offset >= c.split) {
        const uint64_t pos = offset - c.split;
        return {&g_->suffix, pos, pos < suffixSize_ ? suffixSize_ - pos : 0};
    }
    // The walk reads many objects of one old live range in a row: try the
    // record found last before searching.
    if (!(haveLast_ && offset >= last_.offset && offset - last_.offset < last_.length)) {
        const auto r = g_->mapping.find(offset);
        if (!r)
            failAt(g_->suffix.path(), offset, "pack offset " + std::to_string(offset)
                                                  + " was collected by an earlier GC but is still referenced");
        last_ = *r;
        haveLast_ = true;
    }
    return {&g_->prefix, last_.prefixOffset + (offset - last_.offset), last_.offset + last_.length - offset};
}

bool GenerationReader::holds(const Where& w, uint64_t size) const
{
    return winFile_ == w.file && w.position >= winStart_ && w.position + size <= winStart_ + winSize_;
}

void GenerationReader::fill(const Where& w, uint64_t start, uint64_t end, Kind kind)
{
    if (winKind_ == Kind::Behind && winSize_ > 0) {
        // The walk left the last window behind: size the next one by how
        // much of this one it used.
        behindBytes_ = winUsed_ * 4 >= winSize_ ? std::min(behindBytes_ * 2, windowBytes_)
                                                   : std::max(behindBytes_ / 2, kMinWindow);
    }
    // Allocated once and never zeroed (a probe followed by a window behind
    // it must not clear a MiB in between); its pages count only once read
    // into. No read is longer than windowBytes_.
    if (end - start > winCapacity_) {
        winCapacity_ = std::max(end - start, windowBytes_);
        win_.reset(new uint8_t[winCapacity_]);
    }
    winSize_ = 0; // nothing valid if the read fails
    winSize_ = w.file->readSomeAt(win_.get(), size_t(end - start), start);
    winFile_ = w.file;
    winStart_ = start;
    winKind_ = kind;
    winUsed_ = 0;
}

const uint8_t* GenerationReader::window(const Where& w, uint64_t need)
{
    if (need > w.available)
        failAt(w.file->path(), w.position, "pack object is truncated (wanted " + std::to_string(need) + " bytes)");
    if (need > windowBytes_ / 2) { // a huge node header: read it on its own
        big_.resize(need);
        w.file->readAt(big_.data(), need, w.position);
        return big_.data();
    }
    if (holds(w, need))
        return win_.get() + (w.position - winStart_);
    const uint64_t fileEnd = w.position + w.available;
    if (winFile_ == w.file && w.position >= winStart_ + winSize_ && w.position < winStart_ + winSize_ + ahead_) {
        // Just past the window's end: a forward scan (a dry run counting
        // dead objects), so read ahead from here. (The walk jumps forward
        // only from one block of a prefix to the end of the next, about a
        // block away, and goes on downwards from there.)
        fill(w, w.position, std::min(fileEnd, std::max(w.position + need, w.position + windowBytes_)), Kind::Ahead);
    } else {
        // The walk: a probe from the header on; readObject() reads the
        // window behind a small object once it knows the object's size.
        fill(w, w.position, std::min(fileEnd, std::max(w.position + need, w.position + kProbeBytes)), Kind::Probe);
    }
    if (!holds(w, need))
        failAt(w.file->path(), w.position, "pack object is truncated");
    return win_.get() + (w.position - winStart_);
}

uint64_t GenerationReader::readObject(uint64_t offset, std::vector<uint64_t>& children, const uint8_t** bytes)
{
    const Where w = locate(offset);
    const uint8_t* start = window(w, pack::kHeaderFrameOverhead);
    const uint32_t payloadSize = pack::parseHeaderFrameStart(start, w.file->path(), w.position);
    const uint64_t headerBytes = pack::kHeaderFrameOverhead + uint64_t(payloadSize);
    const uint8_t* payload = window(w, headerBytes) + pack::kHeaderFrameOverhead;
    const pack::ObjectHeader h = pack::parseHeaderPayload(payload, payloadSize, w.file->path(), w.position, offset);
    if (h.totalBytes > w.available)
        failAt(w.file->path(), w.position, "pack object at offset " + std::to_string(offset) + " claims "
                                               + std::to_string(h.totalBytes) + " bytes, more than remain");
    for (const auto& c : h.children)
        children.push_back(c.offset);
    // The header was just probed: behind a small object, read the window
    // the next objects will come from (it holds this one too).
    const bool probed = headerBytes <= windowBytes_ / 2 && winKind_ == Kind::Probe && holds(w, headerBytes)
                        && winStart_ == w.position;
    if (probed && h.totalBytes <= kSmallObject) {
        const uint64_t end = w.position + h.totalBytes;
        fill(w, end > behindBytes_ ? end - behindBytes_ : 0, end, Kind::Behind);
        if (!holds(w, h.totalBytes))
            failAt(w.file->path(), w.position, "pack object is truncated");
    }
    const bool whole = headerBytes <= windowBytes_ / 2 && holds(w, h.totalBytes);
    if (whole)
        winUsed_ += h.totalBytes;
    if (bytes)
        *bytes = whole ? win_.get() + (w.position - winStart_) : nullptr;
    return h.totalBytes;
}

void GenerationReader::copySpan(uint64_t offset, uint64_t size, File& out, uint64_t outPosition) const
{
    while (size > 0) {
        const Where w = locate(offset);
        const uint64_t n = std::min(size, w.available);
        if (n == 0)
            failAt(w.file->path(), w.position, "pack offset " + std::to_string(offset) + " is past the end of the pack");
        copyRange(*w.file, w.position, out, outPosition, n);
        outPosition += n;
        offset += n;
        size -= n;
    }
}

std::vector<PackRange> GenerationReader::presentRanges(uint64_t split) const
{
    std::vector<PackRange> out;
    const auto& c = g_->control;
    for (uint64_t i = 0; i < g_->mapping.size(); ++i) {
        const auto r = g_->mapping.at(i);
        if (!out.empty() && out.back().end() == r.offset)
            out.back().length += r.length;
        else
            out.push_back({r.offset, r.length});
    }
    if (split > c.split) {
        if (!out.empty() && out.back().end() == c.split)
            out.back().length += split - c.split;
        else
            out.push_back({c.split, split - c.split});
    }
    return out;
}

} // namespace cs::gc
