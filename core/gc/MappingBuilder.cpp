#include "core/gc/MappingBuilder.h"

#include "core/pack/MappingFile.h"
#include "core/util/Error.h"

#include <algorithm>
#include <vector>

namespace cs::gc {

using pack::kMappingRecordSize;

MappingBuilder::MappingBuilder(const std::string& path) : MappingBuilder(File::openReadWrite(path)) {}

MappingBuilder::MappingBuilder(File file) : file_(std::move(file))
{
    file_.truncate(0);
}

void MappingBuilder::add(uint64_t offset, uint64_t prefixOffset, uint64_t length)
{
    if (offset >= lastOffset_)
        throw Error(file_.path() + ": live ranges must come in decreasing offset order (offset "
                    + std::to_string(offset) + ")");
    if (lastOffset_ != UINT64_MAX && offset + length > lastOffset_)
        throw Error(file_.path() + ": live range at offset " + std::to_string(offset) + " overlaps the next one");
    lastOffset_ = offset;
    liveBytes_ += length;
    uint8_t rec[kMappingRecordSize];
    pack::encodeMappingRecord({offset, prefixOffset, length}, rec);
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
    const uint64_t block = 4096; // records per block
    std::vector<uint8_t> front(block * kMappingRecordSize), back(block * kMappingRecordSize);
    auto reverseBlock = [&](uint8_t* p, uint64_t n) {
        for (uint64_t i = 0; i < n / 2; ++i)
            std::swap_ranges(p + i * kMappingRecordSize, p + (i + 1) * kMappingRecordSize,
                             p + (n - 1 - i) * kMappingRecordSize);
    };
    uint64_t lo = 0, hi = count_;
    while (hi > lo) {
        const uint64_t k = std::min(block, (hi - lo) / 2);
        if (k == 0) // the middle record stays where it is
            break;
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
