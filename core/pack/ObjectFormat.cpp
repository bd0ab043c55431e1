#define ZSTD_STATIC_LINKING_ONLY
#include "core/pack/ObjectFormat.h"

#include "core/util/Coding.h"
#include "core/util/Error.h"

#include <zstd.h>

#include <cstring>
#include <memory>

namespace cs::pack {

namespace {

std::string headerFrame(ObjectKind kind, const std::string& body)
{
    std::string s;
    s.reserve(kHeaderFrameOverhead + 4 + body.size());
    appendLE32(s, kObjectMagic);
    appendLE32(s, uint32_t(4 + body.size()));
    s.push_back(char(kind));
    s.push_back(char(kFormatVersion));
    appendLE16(s, 0);
    s += body;
    return s;
}

} // namespace

size_t compressChunkFrameInto(const void* data, size_t size, int level, char* frameOut, size_t capacity)
{
    // One context per thread, freed when the thread ends (pool threads come
    // and go: a raw thread_local pointer leaked ~110 KB each time).
    thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!ctx)
        throw Error("cannot create a zstd compression context (out of memory)");
    ZSTD_CCtx* cctx = ctx.get();
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    const size_t n = ZSTD_compress2(cctx, frameOut, capacity, data, size);
    if (ZSTD_isError(n))
        throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    return n;
}

size_t chunkObjectBound(size_t rawSize)
{
    return kChunkHeaderBytes + ZSTD_compressBound(rawSize);
}

std::string compressChunkFrame(const void* data, size_t size, int level)
{
    std::string out(ZSTD_compressBound(size), '\0');
    out.resize(compressChunkFrameInto(data, size, level, out.data(), out.size()));
    return out;
}

void encodeChunkHeader(char* out, const Digest& sha256, uint32_t rawSize, uint32_t frameSize)
{
    std::string body;
    body.reserve(kChunkPayloadSize - 4);
    appendLE32(body, rawSize);
    appendLE32(body, frameSize);
    body.append(reinterpret_cast<const char*>(sha256.data()), sha256.size());
    const std::string h = headerFrame(ObjectKind::Chunk, body);
    std::memcpy(out, h.data(), kChunkHeaderBytes);
}

std::string encodeChunk(const Digest& sha256, uint32_t rawSize, const std::string& zstdFrame)
{
    std::string s(kChunkHeaderBytes, '\0');
    encodeChunkHeader(s.data(), sha256, rawSize, uint32_t(zstdFrame.size()));
    s += zstdFrame;
    return s;
}

std::string encodeNode(const std::vector<ChildRef>& children)
{
    if (children.size() > kMaxNodeChildren)
        throw Error("a pack node holds at most " + std::to_string(kMaxNodeChildren) + " children");
    uint64_t logical = 0;
    for (const auto& c : children)
        logical += c.logicalSize;
    std::string body;
    appendLE32(body, uint32_t(children.size()));
    appendLE64(body, logical);
    for (const auto& c : children) {
        appendLE64(body, c.offset);
        appendLE64(body, c.logicalSize);
    }
    return headerFrame(ObjectKind::Node, body);
}

uint32_t parseHeaderFrameStart(const uint8_t* bytes, const std::string& path, uint64_t offset)
{
    const uint32_t magic = readLE32(bytes);
    if (magic != kObjectMagic) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%08X", magic);
        failAt(path, offset, std::string("no pack object here (magic ") + buf + ", expected 0x184D2A5C)");
    }
    const uint32_t size = readLE32(bytes + 4);
    const uint32_t maxPayload = 4 + 4 + 8 + 16 * kMaxNodeChildren;
    if (size < 4 || size > maxPayload)
        failAt(path, offset, "object header claims " + std::to_string(size) + " bytes, outside 4.." + std::to_string(maxPayload));
    return size;
}

ObjectHeader parseHeaderPayload(const uint8_t* p, uint32_t size, const std::string& path, uint64_t offset,
                                uint64_t logicalOffset)
{
    if (logicalOffset == UINT64_MAX)
        logicalOffset = offset;
    ObjectHeader h;
    h.offset = logicalOffset;
    h.headerBytes = kHeaderFrameOverhead + size;
    const uint8_t kind = p[0];
    if (p[1] != kFormatVersion)
        failAt(path, offset, "object header version " + std::to_string(p[1]) + " is not supported");
    if (kind == uint8_t(ObjectKind::Chunk)) {
        if (size != kChunkPayloadSize)
            failAt(path, offset, "chunk header has " + std::to_string(size) + " bytes, expected 44");
        h.kind = ObjectKind::Chunk;
        h.rawSize = readLE32(p + 4);
        h.frameSize = readLE32(p + 8);
        std::memcpy(h.sha256.data(), p + 12, 32);
        if (h.rawSize > kMaxChunkRawSize)
            failAt(path, offset, "chunk claims " + std::to_string(h.rawSize) + " raw bytes, more than the 16 MiB maximum");
        if (h.frameSize > ZSTD_compressBound(h.rawSize) || h.frameSize < 9)
            failAt(path, offset, "chunk frame size " + std::to_string(h.frameSize) + " does not fit its raw size "
                                     + std::to_string(h.rawSize));
        h.totalBytes = uint64_t(h.headerBytes) + h.frameSize;
    } else if (kind == uint8_t(ObjectKind::Node)) {
        if (size < 4 + 12)
            failAt(path, offset, "node header too short");
        h.kind = ObjectKind::Node;
        const uint32_t count = readLE32(p + 4);
        h.logicalSize = readLE64(p + 8);
        if (count > kMaxNodeChildren || size != 4 + 12 + 16ull * count)
            failAt(path, offset, "node claims " + std::to_string(count) + " children in " + std::to_string(size) + " bytes");
        h.children.resize(count);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < count; ++i) {
            h.children[i].offset = readLE64(p + 16 + 16ull * i);
            h.children[i].logicalSize = readLE64(p + 24 + 16ull * i);
            if (h.children[i].offset >= logicalOffset)
                failAt(path, offset, "node child " + std::to_string(i) + " of the node at pack offset "
                                         + std::to_string(logicalOffset) + " points forward to offset "
                                         + std::to_string(h.children[i].offset));
            sum += h.children[i].logicalSize;
        }
        if (sum != h.logicalSize)
            failAt(path, offset, "node logical size " + std::to_string(h.logicalSize) + " is not the sum of its children");
        h.totalBytes = h.headerBytes;
    } else {
        failAt(path, offset, "unknown object kind " + std::to_string(kind));
    }
    return h;
}

} // namespace cs::pack
