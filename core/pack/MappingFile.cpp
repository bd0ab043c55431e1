#include "core/pack/MappingFile.h"

#include "core/util/Coding.h"
#include "core/util/Error.h"

#include <sys/mman.h>

#include <cstring>

#include <utility>

namespace cs::pack {

void encodeMappingRecord(const MappingRecord& r, uint8_t out[kMappingRecordSize])
{
    writeLE64(out, r.offset);
    writeLE64(out + 8, r.prefixOffset);
    writeLE64(out + 16, r.length);
}

MappingFile::~MappingFile()
{
    if (data_ && mappedBytes_)
        ::munmap(const_cast<uint8_t*>(data_), mappedBytes_);
}

MappingFile::MappingFile(MappingFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)),
      mappedBytes_(std::exchange(o.mappedBytes_, 0))
{
}

MappingFile& MappingFile::operator=(MappingFile&& o) noexcept
{
    if (this != &o) {
        if (data_ && mappedBytes_)
            ::munmap(const_cast<uint8_t*>(data_), mappedBytes_);
        data_ = std::exchange(o.data_, nullptr);
        count_ = std::exchange(o.count_, 0);
        mappedBytes_ = std::exchange(o.mappedBytes_, 0);
    }
    return *this;
}

MappingFile MappingFile::open(const std::string& path, std::optional<uint64_t> expectedRecords)
{
    return open(File::openRead(path), expectedRecords);
}

MappingFile MappingFile::open(File f, std::optional<uint64_t> expectedRecords)
{
    const std::string path = f.path();
    const uint64_t size = f.size();
    if (size % kMappingRecordSize != 0)
        failAt(path, size - size % kMappingRecordSize, "mapping file size is not a multiple of 24 bytes");
    MappingFile m;
    m.count_ = size / kMappingRecordSize;
    if (expectedRecords && *expectedRecords != m.count_)
        fail(path, "mapping has " + std::to_string(m.count_) + " records, the control file says "
                       + std::to_string(*expectedRecords));
    if (size > 0) {
        void* p = ::mmap(nullptr, size_t(size), PROT_READ, MAP_SHARED, f.fd(), 0);
        if (p == MAP_FAILED)
            failErrno(path, "cannot map the mapping file");
        m.data_ = static_cast<const uint8_t*>(p);
        m.mappedBytes_ = size_t(size);
    }
    uint64_t prevEnd = 0;
    for (uint64_t i = 0; i < m.count_; ++i) {
        const MappingRecord r = m.at(i);
        if (r.length == 0 || (i > 0 && r.offset < prevEnd) || r.offset + r.length < r.offset)
            failAt(path, i * kMappingRecordSize, "mapping record " + std::to_string(i)
                                                      + " is empty, unsorted or overlaps the previous one");
        prevEnd = r.offset + r.length;
    }
    return m;
}

MappingRecord MappingFile::at(uint64_t index) const
{
    const uint8_t* p = data_ + index * kMappingRecordSize;
    return {readLE64(p), readLE64(p + 8), readLE64(p + 16)}; // one load each: lookups decode millions
}

std::optional<MappingRecord> MappingFile::find(uint64_t offset) const
{
    uint64_t lo = 0, hi = count_;
    while (lo < hi) { // first record with record.offset > offset
        const uint64_t mid = lo + (hi - lo) / 2;
        if (at(mid).offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return std::nullopt;
    const MappingRecord r = at(lo - 1);
    if (offset < r.offset + r.length)
        return r;
    return std::nullopt;
}

std::vector<MappingRecord> MappingFile::all() const
{
    std::vector<MappingRecord> out;
    out.reserve(size_t(count_));
    for (uint64_t i = 0; i < count_; ++i)
        out.push_back(at(i));
    return out;
}

MappingWriter::MappingWriter(const std::string& path) : file_(File::create(path)) {}

void MappingWriter::add(uint64_t offset, uint64_t prefixOffset, uint64_t length)
{
    if (hasPending_) {
        if (offset == pending_.offset + pending_.length && prefixOffset == pending_.prefixOffset + pending_.length) {
            pending_.length += length;
            return;
        }
        if (offset < pending_.offset + pending_.length)
            throw Error(file_.path() + ": mapping records must come sorted and must not overlap (offset "
                        + std::to_string(offset) + ")");
        flushPending();
    }
    pending_ = {offset, prefixOffset, length};
    hasPending_ = true;
}

void MappingWriter::flushPending()
{
    uint8_t rec[kMappingRecordSize];
    encodeMappingRecord(pending_, rec);
    buffer_.append(reinterpret_cast<const char*>(rec), kMappingRecordSize);
    ++written_;
    hasPending_ = false;
    if (buffer_.size() >= (1 << 20)) {
        file_.writeAll(buffer_.data(), buffer_.size());
        buffer_.clear();
    }
}

uint64_t MappingWriter::finish()
{
    if (hasPending_)
        flushPending();
    file_.writeAll(buffer_.data(), buffer_.size());
    buffer_.clear();
    file_.sync();
    file_.close();
    return written_;
}

} // namespace cs::pack
