#include "core/gc/GenerationReader.h"

#include "core/util/Error.h"

#include <algorithm>

namespace cs::gc {

namespace {
constexpr uint64_t kMinWindow = 64u << 10;
}

GenerationReader::GenerationReader(std::shared_ptr<const pack::Generation> g, uint64_t windowBytes)
    : g_(std::move(g)), suffixSize_(g_->suffix.size()), windowBytes_(std::max(windowBytes, kMinWindow)),
      ahead_(windowBytes_ / 16)
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

const uint8_t* GenerationReader::window(const Where& w, uint64_t need)
{
    if (need > w.available)
        failAt(w.file->path(), w.position, "pack object is truncated (wanted " + std::to_string(need) + " bytes)");
    if (need > windowBytes_ / 2) { // a huge node header: read it on its own
        big_.resize(need);
        w.file->readAt(big_.data(), need, w.position);
        return big_.data();
    }
    if (winFile_ == w.file && w.position >= winStart_ && w.position + need <= winStart_ + win_.size())
        return win_.data() + (w.position - winStart_);
    const uint64_t fileEnd = w.position + w.available;
    uint64_t start, end;
    if (winFile_ == w.file && w.position >= winStart_ + win_.size() && w.position < winStart_ + win_.size() + ahead_) {
        // Just past the window's end: a forward scan (a dry run counting
        // dead objects), so read ahead from here. (The walk jumps forward
        // only from one block of a prefix to the end of the next, about a
        // block away, and goes on downwards from there.)
        start = w.position;
        end = std::min(fileEnd, std::max(w.position + need, w.position + windowBytes_));
    } else {
        // The walk: next reads go to smaller positions, so end the window a
        // little past this one.
        end = std::min(fileEnd, std::max(w.position + need, w.position + ahead_));
        start = end > windowBytes_ ? end - windowBytes_ : 0;
    }
    win_.resize(end - start);
    const size_t got = w.file->readSomeAt(win_.data(), win_.size(), start);
    win_.resize(got);
    winFile_ = w.file;
    winStart_ = start;
    if (w.position + need > start + got)
        failAt(w.file->path(), w.position, "pack object is truncated");
    return win_.data() + (w.position - winStart_);
}

uint64_t GenerationReader::readObject(uint64_t offset, std::vector<uint64_t>& children, const uint8_t** bytes)
{
    const Where w = locate(offset);
    const uint8_t* start = window(w, pack::kHeaderFrameOverhead);
    const uint32_t payloadSize = pack::parseHeaderFrameStart(start, w.file->path(), w.position);
    const uint8_t* payload = window(w, pack::kHeaderFrameOverhead + uint64_t(payloadSize)) + pack::kHeaderFrameOverhead;
    const pack::ObjectHeader h = pack::parseHeaderPayload(payload, payloadSize, w.file->path(), w.position, offset);
    if (h.totalBytes > w.available)
        failAt(w.file->path(), w.position, "pack object at offset " + std::to_string(offset) + " claims "
                                               + std::to_string(h.totalBytes) + " bytes, more than remain");
    for (const auto& c : h.children)
        children.push_back(c.offset);
    if (bytes) {
        const bool inWindow = winFile_ == w.file && w.position >= winStart_
                              && w.position + h.totalBytes <= winStart_ + win_.size()
                              && payload == win_.data() + (w.position - winStart_) + pack::kHeaderFrameOverhead;
        *bytes = inWindow ? win_.data() + (w.position - winStart_) : nullptr;
    }
    return h.totalBytes;
}

void GenerationReader::readSpan(uint64_t offset, void* buf, uint64_t size) const
{
    auto* out = static_cast<uint8_t*>(buf);
    while (size > 0) {
        const Where w = locate(offset);
        const uint64_t n = std::min(size, w.available);
        if (n == 0)
            failAt(w.file->path(), w.position, "pack offset " + std::to_string(offset) + " is past the end of the pack");
        w.file->readAt(out, n, w.position);
        out += n;
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
