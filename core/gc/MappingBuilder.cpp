#include "core/gc/MappingBuilder.h"

#include "core/pack/MappingFile.h"
#include "core/util/Error.h"

#include <algorithm>
#include <vector>

namespace cs::gc {

using pack::kMappingRecordSize;
using pack::MappingRecord;

namespace {

uint64_t getU64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = v << 8 | p[i];
    return v;
}

MappingRecord decode(const uint8_t* p) { return {getU64(p), getU64(p + 8), getU64(p + 16)}; }

} // namespace

MappingBuilder::MappingBuilder(const std::string& path) : file_(File::openReadWrite(path))
{
    file_.truncate(0);
}

void MappingBuilder::add(uint64_t offset, uint64_t length)
{
    if (offset >= lastOffset_)
        throw Error(file_.path() + ": live ranges must come in decreasing offset order (offset "
                    + std::to_string(offset) + ")");
    lastOffset_ = offset;
    liveBytes_ += length;
    uint8_t rec[kMappingRecordSize];
    pack::encodeMappingRecord({offset, liveBytes_, length}, rec);
    buffer_.append(reinterpret_cast<const char*>(rec), kMappingRecordSize);
    ++count_;
    if (buffer_.size() >= (64u << 10))
        flush();
}

void MappingBuilder::flush()
{
    file_.writeAt(buffer_.data(), buffer_.size(), (count_ * kMappingRecordSize) - buffer_.size());
    buffer_.clear();
}

uint64_t MappingBuilder::finish()
{
    flush();
    const uint64_t total = liveBytes_;
    const uint64_t block = 4096; // records per block
    std::vector<uint8_t> front(block * kMappingRecordSize), back(block * kMappingRecordSize);
    auto fix = [total](uint8_t* p) {
        MappingRecord r = decode(p);
        r.prefixOffset = total - r.prefixOffset;
        pack::encodeMappingRecord(r, p);
    };
    auto reverseBlock = [&](uint8_t* p, uint64_t n) {
        for (uint64_t i = 0; i < n / 2; ++i)
            std::swap_ranges(p + i * kMappingRecordSize, p + (i + 1) * kMappingRecordSize,
                             p + (n - 1 - i) * kMappingRecordSize);
        for (uint64_t i = 0; i < n; ++i)
            fix(p + i * kMappingRecordSize);
    };
    uint64_t lo = 0, hi = count_;
    while (hi > lo) {
        const uint64_t k = std::min(block, (hi - lo) / 2);
        if (k == 0) { // the middle record stays where it is
            file_.readAt(front.data(), kMappingRecordSize, lo * kMappingRecordSize);
            fix(front.data());
            file_.writeAt(front.data(), kMappingRecordSize, lo * kMappingRecordSize);
            break;
        }
        file_.readAt(front.data(), k * kMappingRecordSize, lo * kMappingRecordSize);
        file_.readAt(back.data(), k * kMappingRecordSize, (hi - k) * kMappingRecordSize);
        reverseBlock(front.data(), k);
        reverseBlock(back.data(), k);
        file_.writeAt(back.data(), k * kMappingRecordSize, lo * kMappingRecordSize);
        file_.writeAt(front.data(), k * kMappingRecordSize, (hi - k) * kMappingRecordSize);
        lo += k;
        hi -= k;
    }
    file_.sync();
    file_.close();
    return count_;
}

} // namespace cs::gc
