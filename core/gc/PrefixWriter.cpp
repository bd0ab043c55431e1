#include "core/gc/PrefixWriter.h"

#include "core/gc/MappingBuilder.h"
#include "core/util/Error.h"

#include <fcntl.h>

#include <algorithm>
#include <cstring>

namespace cs::gc {

PrefixWriter::PrefixWriter(File& out, MappingBuilder& mapping, size_t blockBytes, ReadSpan read, Written written)
    : out_(out), mapping_(mapping), read_(std::move(read)), written_(std::move(written)),
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
        makeRoom(size);
        if (long_)
            return;
    }
    pos_ -= size;
    if (bytes)
        std::memcpy(buf_.data() + pos_, bytes, size);
    else
        read_(offset, buf_.data() + pos_, size);
}

// Writes the completed ranges, keeps the growing one at the buffer's end, and
// gives up buffering it when it cannot fit even in an empty buffer.
void PrefixWriter::makeRoom(uint64_t size)
{
    writeOut(rangeAt_, buf_.size());
    const uint64_t partial = rangeAt_ - pos_;
    if (partial > 0 && rangeAt_ != buf_.size())
        std::memmove(buf_.data() + buf_.size() - partial, buf_.data() + pos_, partial);
    pos_ = buf_.size() - partial;
    rangeAt_ = buf_.size();
    if (size > pos_) {
        long_ = true;
        pos_ = buf_.size();
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

void PrefixWriter::writeOut(uint64_t from, uint64_t to)
{
    if (from == to)
        return;
    out_.writeAt(buf_.data() + from, size_t(to - from), cursor_);
    for (const auto& d : done_)
        mapping_.add(d.offset, cursor_ + (d.at - from), d.length);
    done_.clear();
    // Start the writeback now; the fsync at the end then waits for little.
    ::sync_file_range(out_.fd(), off_t(cursor_), off_t(to - from), SYNC_FILE_RANGE_WRITE);
    cursor_ += to - from;
    if (written_)
        written_(cursor_);
}

// A range longer than the buffer; the buffer is empty (its completed ranges
// were written when the range outgrew it).
void PrefixWriter::copyLongRange()
{
    const uint64_t at = cursor_;
    mapping_.add(rangeStart_, at, rangeEnd_ - rangeStart_);
    for (uint64_t o = rangeStart_; o < rangeEnd_;) {
        const uint64_t n = std::min<uint64_t>(buf_.size(), rangeEnd_ - o);
        read_(o, buf_.data(), n);
        pos_ = 0;
        done_.clear();
        writeOut(0, n);
        o += n;
    }
    pos_ = buf_.size();
}

uint64_t PrefixWriter::finish()
{
    if (open_)
        closeRange();
    writeOut(pos_, buf_.size());
    pos_ = buf_.size();
    return cursor_;
}

} // namespace cs::gc
