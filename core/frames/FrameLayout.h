// The frame layout of any file of concatenated zstd and skippable frames,
// read from headers only (memory grows with the number of frames, not with
// the file size). Uses libzstd's ZSTD_getFrameHeader and
// ZSTD_findFrameCompressedSize where it can; block headers are walked only
// for the per-block listing (and to find a frame's end when libzstd needs
// the whole frame in memory to do it).
//
// Recognised extras:
//  - the zstd seekable format's seek table: a skippable frame with magic
//    0x184D2A5E whose last 9 bytes are the footer (u32 frame count, u8
//    descriptor, u32 magic 0x8F92EAB1), found from the file's tail;
//  - pzstd's 12-byte skippable frames (magic 0x184D2A50, 4-byte payload
//    holding the next frame's compressed size).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cs {
class Job;

enum class FrameKind { Zstd, Skippable };
enum class SkippableRole { None, SeekTable, PzstdSize, Other };
enum class BlockType { Raw = 0, Rle = 1, Compressed = 2 };

struct BlockInfo {
    uint64_t offset = 0;        // of the 3-byte block header, in the file
    BlockType type = BlockType::Raw;
    uint32_t size = 0;          // bytes that follow the header (1 for RLE)
    uint32_t contentSize = 0;   // decoded size for raw and RLE; 0 (unknown) for compressed
    bool last = false;
};

struct FrameInfo {
    uint64_t index = 0;
    uint64_t offset = 0;
    FrameKind kind = FrameKind::Zstd;
    uint32_t magic = 0;                    // 0xFD2FB528 or 0x184D2A5?
    SkippableRole role = SkippableRole::None;
    uint32_t headerSize = 0;
    uint64_t windowSize = 0;
    uint32_t dictionaryId = 0;
    std::optional<uint64_t> contentSize;   // declared content size, if any
    bool singleSegment = false;
    bool checksum = false;
    uint32_t checksumValue = 0;            // with checksum: its 4 bytes (low 32 bits of the content's XXH64)
    uint64_t compressedSize = 0;           // whole frame, header to checksum
    uint64_t blocks[3] = {0, 0, 0};        // counts by BlockType (filled when blocks were walked)
    std::vector<BlockInfo> blockList;      // only with FrameScanOptions::blocks
};

struct SeekTableInfo {
    uint64_t offset = 0;       // of the skippable frame holding it
    uint32_t frames = 0;
    bool checksums = false;
    struct Entry { uint32_t compressedSize; uint32_t decompressedSize; uint32_t checksum; };
    // Empty when the entry count does not match the zstd frames, and in a
    // streaming scan (scanFramesStreaming checks each entry as its frame
    // passes and keeps none).
    std::vector<Entry> entries;
    // Whether the entries match the zstd frames before the table: the count,
    // where each entry ends (the running sum of compressed sizes, which may
    // take in skippable frames before its zstd frame, as hole markers are),
    // declared content sizes, and checksums where both the table and the
    // frame have one. problem names the first entry that differs.
    bool consistent = true;
    std::string problem;
};

struct ParallelVerdict {
    bool splittable = false;
    uint64_t pieces = 0;       // independent pieces a parallel decoder gets
    std::string reason;        // one sentence
};

struct FrameSummary {
    uint64_t zstdFrames = 0;
    uint64_t skippableFrames = 0;
    uint64_t sizedFrames = 0;
    uint64_t unsizedFrames = 0;
    uint64_t fileSize = 0;
    uint64_t compressedSize = 0;             // sum of all frames (= file size when valid)
    std::optional<uint64_t> contentSize;     // unset when any zstd frame is unsized
    double ratio = 0;                        // content / compressed (0 when unknown)
    uint64_t largestFrameIndex = 0;
    uint64_t largestFrameOffset = 0;
    uint64_t largestFrameSize = 0;           // compressed
    bool allChecksummed = false;
    ParallelVerdict parallel;
};

struct FrameLayout {
    std::string path;
    std::vector<FrameInfo> frames;
    std::optional<SeekTableInfo> seekTable;
    FrameSummary summary;
};

struct FrameScanOptions {
    bool blocks = false;       // list every block of every zstd frame
};

// The bytes a scan reads, by position: a file (scanFrames(path)), or an
// actions-cache entry's blob on any backend (core/entries/BlobFrameSource.h),
// read where it lies without a temporary copy.
class FrameSource {
public:
    virtual ~FrameSource() = default;
    virtual uint64_t size() const = 0;
    // Up to n bytes at offset (fewer only at the end). Throws cs::Error.
    virtual size_t readSomeAt(void* buf, size_t n, uint64_t offset) = 0;
};

// Scans path. Throws cs::Error naming the file and offset on a truncated file,
// trailing garbage, a bad magic, a reserved bit set, or a block larger than the
// spec allows. Reports progress (bytes passed / file size) and checks cancel
// through job.
FrameLayout scanFrames(const std::string& path, const FrameScanOptions& options, Job& job);
// The same over any source; name stands for the path in errors and in layout.path.
FrameLayout scanFrames(FrameSource& source, const std::string& name, const FrameScanOptions& options, Job& job);

// What a streaming scan holds at the end: the totals, not the frames.
struct FrameScanTotals {
    std::optional<SeekTableInfo> seekTable;  // entries not kept
    FrameSummary summary;
};

// The same scan, frame by frame: onFrame sees every frame in file order (the
// reference is valid during the call only) and nothing per frame is kept, so
// memory stays constant whatever the frame count. The seek table, which sits
// after the frames it describes, is checked entry by entry as each frame
// passes (read through a second window at the table's place). Throws like
// scanFrames, possibly after onFrame saw the frames before the problem.
FrameScanTotals scanFramesStreaming(const std::string& path, const FrameScanOptions& options, Job& job,
                                    const std::function<void(const FrameInfo&)>& onFrame);
FrameScanTotals scanFramesStreaming(FrameSource& source, const std::string& name, const FrameScanOptions& options,
                                    Job& job, const std::function<void(const FrameInfo&)>& onFrame);

const char* frameKindName(FrameKind k);          // "zstd", "skippable"
const char* skippableRoleName(SkippableRole r);  // "", "seek_table", "pzstd_size", "other"
const char* blockTypeName(BlockType t);          // "raw", "rle", "compressed"

} // namespace cs
