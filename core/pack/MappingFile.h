// N.mapping: where the live ranges below the split point went in N.prefix.
// A sequence of 24-byte records, little-endian u64 (offset, prefix_offset,
// length), sorted by offset, non-overlapping, and collapsed: two records are
// never contiguous in both offset and prefix_offset. Reads of an old offset
// binary-search it. The file is memory-mapped, so opening a mapping of
// millions of records costs nothing until it is used.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/util/File.h"

namespace cs::pack {

struct MappingRecord {
    uint64_t offset = 0;
    uint64_t prefixOffset = 0;
    uint64_t length = 0;
    bool operator==(const MappingRecord&) const = default;
};

constexpr size_t kMappingRecordSize = 24;

class MappingFile {
public:
    MappingFile() = default;
    ~MappingFile();
    MappingFile(MappingFile&&) noexcept;
    MappingFile& operator=(MappingFile&&) noexcept;
    MappingFile(const MappingFile&) = delete;
    MappingFile& operator=(const MappingFile&) = delete;

    // Maps path; checks the size is a multiple of 24, equals expectedRecords
    // when given, and that records are sorted and non-overlapping.
    static MappingFile open(const std::string& path, std::optional<uint64_t> expectedRecords = {});
    static MappingFile open(File file, std::optional<uint64_t> expectedRecords = {});

    uint64_t size() const { return count_; }
    MappingRecord at(uint64_t index) const;
    // The record whose range holds offset, or nothing when offset was collected.
    std::optional<MappingRecord> find(uint64_t offset) const;
    std::vector<MappingRecord> all() const;

private:
    const uint8_t* data_ = nullptr;
    uint64_t count_ = 0;
    size_t mappedBytes_ = 0;
};

// Writes records in order, collapsing a record into the previous one when
// both its offset and prefix offset continue it. Records must come sorted.
class MappingWriter {
public:
    explicit MappingWriter(const std::string& path);
    void add(uint64_t offset, uint64_t prefixOffset, uint64_t length);
    // Flushes, fsyncs, closes; returns the number of records written.
    uint64_t finish();

private:
    void flushPending();
    File file_;
    std::string buffer_;
    MappingRecord pending_{};
    bool hasPending_ = false;
    uint64_t written_ = 0;
};

void encodeMappingRecord(const MappingRecord& r, uint8_t out[kMappingRecordSize]);

} // namespace cs::pack
