// Snapshots: a file written as independent zstd frames of at most `chunk`
// input bytes, each declaring its content size and carrying a checksum, so
// that a decoder can put every frame straight into its place in the output
// with N threads and bounded memory. Stock `zstd -d` decodes every snapshot
// to the same bytes as the input.
//
// On-disk format (see docs/formats.md, section "snapshot"):
//   snapshot   := piece* seek_table?
//   piece      := data_frame | hole_marker zero_frame
//   data_frame := zstd frame, content size declared, XXH64 checksum flag set,
//                 content = the next <= chunk bytes of the input
//   hole_marker:= skippable frame, magic 0x184D2A5D, 12-byte payload:
//                 "hole" + u64 LE length (= content size of the next frame)
//   zero_frame := zstd frame of `length` zero bytes (a few hundred bytes),
//                 content size declared, checksum flag set
//   seek_table := zstd seekable format: skippable frame, magic 0x184D2A5E,
//                 per zstd frame {u32 compressed size, u32 decompressed size,
//                 u32 checksum}, footer {u32 frames, u8 descriptor (bit 7:
//                 checksums present), u32 magic 0x8F92EAB1}. A hole marker's
//                 20 bytes count in the compressed size of the zero frame that
//                 follows it, so cumulative sums give each entry's offset.
// A hole run is the part of a sparse input that SEEK_DATA/SEEK_HOLE report as
// unallocated. Stock zstd ignores the marker and writes the zeros; our restore
// sees the marker, verifies the zero frame and leaves a hole in the output.
//
// restoreSnapshot() also decodes any other concatenation of zstd and skippable
// frames: frames without a declared content size (or declaring more than
// kMaxPooledFrameSize, or more than the memory budget) are decoded serially by
// streaming with bounded memory.
#pragma once
#include <cstdint>
#include <string>

namespace cs {
class Job;

constexpr uint32_t kHoleMarkerMagic = 0x184D2A5D;
constexpr uint32_t kHoleMarkerPayloadSize = 12;          // "hole" + u64 length
constexpr uint32_t kSeekTableMagic = 0x184D2A5E;         // skippable frame of the seek table
constexpr uint32_t kSeekTableFooterMagic = 0x8F92EAB1;
constexpr uint64_t kMaxSnapshotChunk = uint64_t(1) << 30; // 1 GiB: largest accepted --chunk
constexpr uint64_t kMinSnapshotChunk = 1024;
// A sized frame declaring more than this is decoded by streaming (bounded
// memory) instead of into a pooled buffer of its declared size.
constexpr uint64_t kMaxPooledFrameSize = uint64_t(64) << 20;

struct SnapshotWriteOptions {
    uint64_t chunk = uint64_t(8) << 20; // input bytes per frame, kMinSnapshotChunk..kMaxSnapshotChunk
    int threads = 1;                    // compression workers, 1..256
    int level = 3;                      // zstd level, ZSTD_minCLevel()..ZSTD_maxCLevel()
    bool seekTable = false;             // append a seek table (zstd seekable format)
};

struct SnapshotWriteResult {
    uint64_t inputBytes = 0;      // logical size of the source, holes included
    uint64_t outputBytes = 0;     // size of the snapshot file
    uint64_t frames = 0;          // every frame written: zstd + skippable (markers, seek table)
    uint64_t dataFrames = 0;      // zstd frames holding input data
    uint64_t holeFrames = 0;      // zstd frames of zeros that stand for holes
    uint64_t holeBytes = 0;       // input bytes that were holes
    bool seekTable = false;
    double wallSeconds = 0;
    double cpuSeconds = 0;        // user + system of the whole process during the write
    double ratio() const { return outputBytes ? double(inputBytes) / double(outputBytes) : 0; }
};

// Writes src as a snapshot to out (through out.tmp-XXXXXX and a rename; on
// error or cancel nothing is left behind). src may be a regular file (read
// with pread, holes detected) or a pipe/character device (read sequentially).
// Memory: per worker one input buffer of `chunk` bytes, up to two output
// buffers of ZSTD_compressBound(chunk) bytes (the second only when a worker
// finishes ahead of the writing order) and one compression context.
// Throws cs::Error (bad options, I/O errors, naming the file and offset) or
// cs::Cancelled.
SnapshotWriteResult writeSnapshot(const std::string& src, const std::string& out,
                                  const SnapshotWriteOptions& options, Job& job);

// Restore's default memory budget for frame buffers (all threads together).
constexpr uint64_t kDefaultRestoreMemoryBudget = uint64_t(256) << 20;
constexpr uint64_t kMinRestoreMemoryBudget = uint64_t(8) << 20;
constexpr int kMaxRestoreThreads = 64;

struct SnapshotRestoreOptions {
    int threads = 1;              // decoding threads, 1..kMaxRestoreThreads
    // Bytes of frame buffers all threads may hold together (a frame in
    // parallel costs its declared size plus its compressed size, at most a
    // 512 KiB read window of it). Threads wait for
    // room, so N threads x frame size stays within it whatever the file
    // declares; a frame that alone does not fit is decoded by streaming.
    // At least kMinRestoreMemoryBudget.
    uint64_t memoryBudget = kDefaultRestoreMemoryBudget;
};

struct SnapshotRestoreResult {
    uint64_t inputBytes = 0;      // size of the snapshot file
    uint64_t outputBytes = 0;     // size of the restored file
    uint64_t zstdFrames = 0;
    uint64_t skippableFrames = 0;
    uint64_t sizedFrames = 0;     // decoded in parallel into place
    uint64_t streamedFrames = 0;  // decoded serially (no declared size, or larger than kMaxPooledFrameSize)
    uint64_t holeBytes = 0;       // left as holes in the output
    bool seekTable = false;
    double wallSeconds = 0;
    double cpuSeconds = 0;
};

// Decodes snap into out (through out.tmp-XXXXXX and a rename). Every frame's
// checksum is verified when it has one, every declared size is checked
// against its blocks before anything is allocated. Throws cs::Error naming the
// snapshot and the frame's index and offset, or cs::Cancelled; never leaves a
// partial output behind.
// `out` goes through cs::OutputFile (both here and in writeSnapshot): a
// regular file is replaced on success only; a device, FIFO or "-" (standard
// output) is written in place. Outputs that cannot seek (FIFO, pipe,
// character device, standard output) get every frame decoded serially in
// order, holes written as zeros; a block device gets the parallel decode,
// holes written as zeros (it holds old bytes), and keeps its size.
SnapshotRestoreResult restoreSnapshot(const std::string& snap, const std::string& out,
                                      const SnapshotRestoreOptions& options, Job& job);

struct StreamCompressResult {
    uint64_t inputBytes = 0;
    uint64_t outputBytes = 0;
};

// Compresses src into ONE zstd frame that does not declare its content size
// (streaming API, no pledged size), the way `zstd < in > out` does: a stream a
// parallel decoder cannot split. Written through a temp file and a rename.
StreamCompressResult compressStreamUnsized(const std::string& src, const std::string& out, int level,
                                           Job& job);

} // namespace cs
