// CRC-32C (Castagnoli, as in iSCSI, ext4 and LevelDB): the checksum of an
// uploaded part, so fsck finds bytes flipped on disk without a SHA-256 pass
// per part at commit (SSE4.2 computes it at several GB/s; a table where the
// CPU lacks it). Not a defence against a forger: the entry's SHA-256 is.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cs {

// Extends crc (0 to start) with size bytes; crc32c(0, "123456789", 9) == 0xE3069283.
uint32_t crc32c(uint32_t crc, const void* data, size_t size);

// The same with a byte table only (what crc32c uses without SSE4.2); tests
// compare the two.
uint32_t crc32cPortable(uint32_t crc, const void* data, size_t size);

} // namespace cs
