#include "core/gc/PrefixWriter.h"

#include "core/gc/MappingBuilder.h"
#include "core/util/Error.h"

#include <fcntl.h>

#include <algorithm>
#include <cstring>

namespace cs::gc {

PrefixWriter::PrefixWriter(File& out, MappingBuilder& mapping, size_t blockBytes, CopySpan copy, Written written)
    : out_(out), mapping_(mapping), copy_(std::move(copy)), written_(std::move(written)),
      buf_(std::max<size_t>(blockBytes, 64)), pos_(buf_.size())
{
}

void PrefixWriter::add(uint64_t offset, uint64_t size, const uint8_t* bytes)
{
    if (offset >= lastOffset_)
        throw Error(out_.path() + ": live objects must come in decreasing offset order (offset "
                    + std::to_string(offset) + " after " + std::to_string(lastOffset_) + ")");
    if (size == 0 || offset + size < offset)
        throw Error(out_.path() + ": live object at offset " + std::to_string(offset) + " has an impossible size");
    lastOffset_ = offset;
    if (open_ && offset + size == rangeStart_) {
        rangeStart_ = offset;
    } else {
        if (open_)
            closeRange();
        open_ = true;
        long_ = false;
        rangeStart_ = offset;
        rangeEnd_ = offset + size;
        rangeAt_ = pos_;
    }
    if (long_)
        return;
    if (size > pos_) {
        makeRoom(offset, size);
        if (long_)
            return;
    }
    pos_ -= size;
    if (bytes) {
        std::memcpy(buf_.data() + pos_, bytes, size);
    } else if (!holes_.empty() && holes_.back().at == pos_ + size && holes_.back().offset == offset + size) {
        // the object above it in the same range was not in memory either: one copy for both
        holes_.back().offset = offset;
        holes_.back().at = pos_;
        holes_.back().length += size;
    } else {
        holes_.push_back({offset, size, pos_});
    }
}

// Writes the completed ranges, keeps the growing one at the buffer's end, and
// stops buffering it when the object at offset cannot fit even then.
void PrefixWriter::makeRoom(uint64_t offset, uint64_t size)
{
    writeOut(rangeAt_);
    const uint64_t partial = rangeAt_ - pos_;
    const uint64_t shift = buf_.size() - rangeAt_;
    if (partial > 0 && shift > 0) {
        std::memmove(buf_.data() + pos_ + shift, buf_.data() + pos_, partial);
        for (auto& h : holes_) // what is left of them is in the growing range
            h.at += shift;
    }
    pos_ += shift;
    rangeAt_ = buf_.size();
    if (size > pos_) {
        long_ = true;
        longFrom_ = offset + size;
    }
}

void PrefixWriter::closeRange()
{
    const uint64_t length = rangeEnd_ - rangeStart_;
    if (long_) {
        copyLongRange();
    } else {
        if (rangeAt_ - pos_ != length)
            throw Error(out_.path() + ": internal error: buffered range at offset " + std::to_string(rangeStart_)
                        + " holds " + std::to_string(rangeAt_ - pos_) + " bytes, not " + std::to_string(length));
        done_.push_back({rangeStart_, length, pos_});
    }
    ++ranges_;
    open_ = false;
    long_ = false;
}

// Writes buf_[from, end) at the prefix's end: the bytes in memory with
// pwrite, the holes copied from the old generation in between.
void PrefixWriter::writeOut(uint64_t from)
{
    const uint64_t to = buf_.size();
    if (from == to)
        return;
    // holes_ is in decreasing position order: the ones in [from, to) come first.
    size_t k = 0;
    while (k < holes_.size() && holes_[k].at >= from)
        ++k;
    uint64_t at = from;
    for (size_t i = k; i-- > 0;) {
        const Buffered& h = holes_[i];
        if (h.at > at)
            out_.writeAt(buf_.data() + at, size_t(h.at - at), cursor_ + (at - from));
        copy_(h.offset, h.length, out_, cursor_ + (h.at - from));
        at = h.at + h.length;
    }
    if (at < to)
        out_.writeAt(buf_.data() + at, size_t(to - at), cursor_ + (at - from));
    holes_.erase(holes_.begin(), holes_.begin() + std::ptrdiff_t(k));
    for (const auto& d : done_)
        mapping_.add(d.offset, cursor_ + (d.at - from), d.length);
    done_.clear();
    wrote(to - from);
}

void PrefixWriter::wrote(uint64_t bytes)
{
    // Start the writeback now; the fsync at the end then waits for little.
    ::sync_file_range(out_.fd(), off_t(cursor_), off_t(bytes), SYNC_FILE_RANGE_WRITE);
    cursor_ += bytes;
    if (written_)
        written_(cursor_);
}

// A range longer than the buffer: [rangeStart_, longFrom_) was only walked,
// [longFrom_, rangeEnd_) is buffered at the buffer's end (nothing else is:
// the completed ranges were written when the range outgrew the buffer).
void PrefixWriter::copyLongRange()
{
    if (buf_.size() - pos_ != rangeEnd_ - longFrom_ || !done_.empty())
        throw Error(out_.path() + ": internal error: long range at offset " + std::to_string(rangeStart_) + " buffers "
                    + std::to_string(buf_.size() - pos_) + " bytes, not " + std::to_string(rangeEnd_ - longFrom_));
    mapping_.add(rangeStart_, cursor_, rangeEnd_ - rangeStart_);
    for (uint64_t o = rangeStart_; o < longFrom_;) {
        const uint64_t n = std::min<uint64_t>(buf_.size(), longFrom_ - o);
        copy_(o, n, out_, cursor_);
        wrote(n);
        o += n;
    }
    writeOut(pos_);
    pos_ = buf_.size();
}

uint64_t PrefixWriter::finish()
{
    if (open_)
        closeRange();
    writeOut(pos_);
    pos_ = buf_.size();
    return cursor_;
}

} // namespace cs::gc
