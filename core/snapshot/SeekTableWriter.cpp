#include "core/snapshot/SnapshotInternal.h"

#include "core/snapshot/Snapshot.h"

namespace cs::snapshot {

std::string SeekTableWriter::frame() const
{
    // Seekable format: skippable frame header, entries, then the 9-byte footer
    // (frame count, descriptor with bit 7 = checksums present, footer magic).
    std::string payload;
    payload.reserve(entries_.size() * 12 + 9);
    for (const auto& e : entries_) {
        appendLE32(payload, e.compressedSize);
        appendLE32(payload, e.decompressedSize);
        appendLE32(payload, e.checksum);
    }
    appendLE32(payload, uint32_t(entries_.size()));
    payload.push_back(char(0x80));
    appendLE32(payload, kSeekTableFooterMagic);
    std::string out;
    appendLE32(out, kSeekTableMagic);
    appendLE32(out, uint32_t(payload.size()));
    return out + payload;
}

} // namespace cs::snapshot
