// Pack objects: how chunks and nodes are laid out in the pack.
//
// Every object starts with a skippable zstd frame holding its header, so the
// whole pack is a valid zstd stream that `cachescope-cli frames` and stock
// `zstd -t` read (skippable frames are ignored by decoders):
//
//   u32 magic 0x184D2A5C  (little-endian, like every integer here)
//   u32 header payload size
//   u8  kind (1 chunk, 2 node)   u8 version (1)   u16 reserved (0)
//   chunk: u32 raw size, u32 size of the zstd frame that follows,
//          32-byte SHA-256 of the raw bytes                 (payload 44 bytes)
//          then the zstd frame: declares its content size, carries a checksum
//   node:  u32 child count, u64 logical size (bytes under this node),
//          child count x (u64 child offset, u64 child logical size)
//
// An object's key is the offset of its header frame. A child is always
// written before its parent, so every child offset is smaller than its
// parent's: edges point backwards, which the GC's reverse-offset walk relies on.
#pragma once
#include "core/util/Sha256.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cs::pack {

constexpr uint32_t kObjectMagic = 0x184D2A5C;
constexpr uint8_t kFormatVersion = 1;
constexpr uint32_t kMaxChunkRawSize = 16u << 20;     // larger declared sizes are corrupt
constexpr uint32_t kMaxNodeChildren = 4096;          // longer lists become a tree of nodes
constexpr uint32_t kHeaderFrameOverhead = 8;         // magic + payload size
constexpr uint32_t kChunkPayloadSize = 4 + 4 + 4 + 32; // kind/version/reserved, raw size, frame size, SHA-256
constexpr uint32_t kChunkHeaderBytes = kHeaderFrameOverhead + kChunkPayloadSize; // what precedes a chunk's zstd frame

enum class ObjectKind : uint8_t { Chunk = 1, Node = 2 };

struct ChildRef {
    uint64_t offset = 0;
    uint64_t logicalSize = 0;
};

// What an object header says, without its data.
struct ObjectHeader {
    ObjectKind kind = ObjectKind::Chunk;
    uint64_t offset = 0;
    uint32_t headerBytes = 0;       // skippable frame, magic to end of payload
    uint64_t totalBytes = 0;        // whole object, header and frame
    // chunk
    uint32_t rawSize = 0;
    uint32_t frameSize = 0;
    Digest sha256{};
    // node
    uint64_t logicalSize = 0;
    std::vector<ChildRef> children;
};

// Encodes a chunk object: header frame + the already compressed zstd frame.
std::string encodeChunk(const Digest& sha256, uint32_t rawSize, const std::string& zstdFrame);
// Compresses raw bytes into one sized, checksummed zstd frame at the level.
std::string compressChunkFrame(const void* data, size_t size, int level);
std::string encodeNode(const std::vector<ChildRef>& children);

// The same without a string per chunk (the merge's hot path): a chunk object
// is built in one reused buffer, the frame compressed at out +
// kChunkHeaderBytes, then its header written in front of it.
// Returns the frame's size; out needs kChunkHeaderBytes + chunkObjectBound(size).
size_t compressChunkFrameInto(const void* data, size_t size, int level, char* frameOut, size_t capacity);
size_t chunkObjectBound(size_t rawSize);
void encodeChunkHeader(char* out, const Digest& sha256, uint32_t rawSize, uint32_t frameSize);

// Parses the 8-byte frame start; returns the payload size or throws naming path and offset.
uint32_t parseHeaderFrameStart(const uint8_t* bytes, const std::string& path, uint64_t offset);
// Parses the payload of a header frame (kind, sizes, children) and checks it
// is sane; throws cs::Error naming path and offset (the position in the file)
// otherwise. logicalOffset is the object's pack offset, which children must
// be below; it differs from the file position in a prefix or in a suffix
// after a GC (default: the same as offset, as in generation 0).
ObjectHeader parseHeaderPayload(const uint8_t* payload, uint32_t size, const std::string& path, uint64_t offset,
                                uint64_t logicalOffset = UINT64_MAX);

} // namespace cs::pack
