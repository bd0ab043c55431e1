// The snapshot decoder. A header pass checks every frame and keeps none; the
// decode pass reads the headers again, and runs of frames that declare a
// content size (up to kMaxPooledFrameSize) get their output offset
// from the sum of the sizes before them and are decoded by N threads straight
// into place (pwrite), each thread holding one frame's output and a 512 KiB
// window of its compressed bytes at a time in its own buffers. A frame
// without a declared size ends the run: it is decoded serially by
// streaming, and its decoded length fixes the offsets after it.
// Hole frames (announced by a hole marker) are decoded and checked to be
// zeros but not written, so the output keeps the hole.
// The threads' positioned writes go through SerialWrites: one write(2) at a
// time, a thread whose piece finds another write under way queues it and
// decodes on (two writers of one file only queue on its inode lock).
#include "core/snapshot/Snapshot.h"
#include "core/snapshot/SnapshotInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/InputFile.h"
#include "core/util/SerialWrites.h"

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <atomic>
#include <exception>
#include <thread>

namespace cs {
using namespace snapshot;

namespace {

using DCtxPtr = std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)>;

DCtxPtr makeDCtx(const std::string& path)
{
    DCtxPtr d(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!d)
        fail(path, "cannot create a decompression context (out of memory)");
    return d;
}

bool allZero(const char* p, size_t n)
{
    static const char zeros[4096] = {};
    while (n >= sizeof zeros) {
        if (std::memcmp(p, zeros, sizeof zeros) != 0)
            return false;
        p += sizeof zeros;
        n -= sizeof zeros;
    }
    return std::memcmp(p, zeros, n) == 0;
}

struct Work {
    ScannedFrame frame;
    uint64_t outOffset = 0;
};

// Sized frames decoded in parallel are handed to the threads in batches of at
// most this many: restore holds one batch of frame records, never the whole
// file's (a file of 10 M tiny frames held 929 MB of them).
constexpr size_t kMaxBatchFrames = 4096;

// A sized frame's compressed bytes are read in windows of this size, not
// whole: the window stays in the CPU cache between the read(2) that fills it
// and the decoder that reads it (a whole 8 MiB frame went out to memory and
// came back), and a thread's input buffer is this, not the frame. At least
// one block (ZSTD_BLOCKSIZE_MAX plus its header) so that a block always fits.
constexpr size_t kInputWindow = size_t(1) << 19;
static_assert(kInputWindow >= ZSTD_BLOCKSIZE_MAX + 3);

// What a frame decoded in parallel holds: its input window and its output.
size_t inputWindowOf(const ScannedFrame& f)
{
    return size_t(std::min<uint64_t>(f.compressedSize, kInputWindow));
}
size_t outputOf(const ScannedFrame& f)
{
    return size_t(std::max<uint64_t>(*f.contentSize, 1));
}
uint64_t pooledBytes(const ScannedFrame& f)
{
    return uint64_t(inputWindowOf(f)) + outputOf(f);
}

class Decoder {
public:
    Decoder(const std::string& snap, const std::string& out, const SnapshotRestoreOptions& o, Job& job)
        : snap_(snap), out_(out), options_(o), job_(job)
    {
    }
    SnapshotRestoreResult run();

private:
    struct ThreadState {
        DCtxPtr dctx{nullptr, ZSTD_freeDCtx};
        Buffer in, out;
        uint64_t charged = 0;  // of budget_: in.capacity() + out.capacity() never exceeds it
    };
    [[noreturn]] void failFrame(const ScannedFrame& f, const std::string& what) const
    {
        failAt(snap_, f.offset, "frame " + std::to_string(f.index) + ": " + what);
    }
    void decodeBatch(const std::vector<Work>& batch);
    bool reserveWithinBudget(ThreadState& ts, size_t csize, size_t dsize, const std::atomic<bool>& stop);
    void releaseBuffers(ThreadState& ts);
    void decodeSized(ThreadState& ts, size_t owner, const Work& w);
    void decodeSizedPieces(ThreadState& ts, size_t owner, const Work& w);
    uint64_t decodeStreaming(const ScannedFrame& f, uint64_t outOffset);
    void reportProgress();
    // Decoded bytes for output offset `at`: in order for a pipe, character
    // device or standard output; positioned for a temp file or block device.
    // With an owner (a decoding thread) and a seekable output the piece is
    // offered to writes_: its bytes must stay put until the owner drains.
    void writeOut(const char* data, size_t size, uint64_t at, int owner = -1);
    // A hole frame's zeros: skipped in a fresh temp file (truncate() leaves
    // holes), written where the output has old bytes or cannot seek.
    void writeHole(const ScannedFrame& f, const char* data, size_t size, uint64_t at, int owner = -1);

    const std::string snap_, out_;
    const SnapshotRestoreOptions options_;
    Job& job_;
    File in_;
    std::unique_ptr<OutputFile> output_;
    std::unique_ptr<SerialWrites> writes_;   // seekable output: the decoding threads' writes
    bool inOrder_ = false;      // the output cannot seek: every frame decoded serially, in order
    bool writeHoles_ = false;   // the output is not a fresh temp file
    uint64_t written_ = 0;      // inOrder_: bytes written so far
    std::vector<ThreadState> states_;
    DCtxPtr streamCtx_{nullptr, ZSTD_freeDCtx};
    Buffer streamIn_, streamOut_;
    std::atomic<uint64_t> compressedDone_{0};
    uint64_t fileSize_ = 0;
    MemoryBudget budget_{options_.memoryBudget};
};

void Decoder::releaseBuffers(ThreadState& ts)
{
    ts.in.release();
    ts.out.release();
    budget_.release(ts.charged);
    ts.charged = 0;
}

// Grows ts's buffers to csize and dsize bytes once the budget has room for
// them; false when stop was raised while waiting.
bool Decoder::reserveWithinBudget(ThreadState& ts, size_t csize, size_t dsize, const std::atomic<bool>& stop)
{
    const uint64_t grown = std::max(ts.in.capacity(), csize) + std::max(ts.out.capacity(), dsize);
    if (grown > ts.charged) {
        if (budget_.tryAcquire(grown - ts.charged)) {
            ts.charged = grown;
        } else {
            releaseBuffers(ts);
            if (!budget_.acquire(uint64_t(csize) + dsize, [&] { return stop.load() || job_.isCancelled(); }))
                return false;
            ts.charged = uint64_t(csize) + dsize;
        }
    }
    ts.in.reserve(csize);
    ts.out.reserve(dsize);
    return true;
}

void Decoder::writeOut(const char* data, size_t size, uint64_t at, int owner)
{
    if (owner >= 0 && writes_) {
        writes_->offer(size_t(owner), data, size, at);
        return;
    }
    if (!inOrder_) {
        output_->file().writeAt(data, size, at);
        return;
    }
    if (at != written_)
        fail(out_, "internal error: out-of-order write to an output that cannot seek");
    output_->writeAll(data, size);
    written_ += size;
}

void Decoder::writeHole(const ScannedFrame& f, const char* data, size_t size, uint64_t at, int owner)
{
    if (!allZero(data, size))
        failFrame(f, "frame announced as a hole does not decode to zeros");
    if (writeHoles_)
        writeOut(data, size, at, owner);
}

void Decoder::reportProgress()
{
    if (fileSize_)
        job_.setStepProgress(double(compressedDone_.load()) / double(fileSize_));
}

// Decodes one sized frame; returns once every byte of it is written, so the
// thread's buffers can be reused or freed (also when decoding fails).
void Decoder::decodeSized(ThreadState& ts, size_t owner, const Work& w)
{
    try {
        decodeSizedPieces(ts, owner, w);
    } catch (...) {
        if (writes_) {
            try {
                writes_->drain(owner);
            } catch (...) {
                // A failed write: the first error is the one reported.
            }
        }
        throw;
    }
    if (writes_)
        writes_->drain(owner);
}

void Decoder::decodeSizedPieces(ThreadState& ts, size_t owner, const Work& w)
{
    const ScannedFrame& f = w.frame;
    const int o = int(owner);
    const size_t csize = size_t(f.compressedSize);
    const size_t dsize = size_t(*f.contentSize);
    // ts.in holds the frame's bytes [inBase, inEnd), at most kInputWindow.
    const size_t window = inputWindowOf(f);
    size_t inBase = 0, inEnd = 0;
    // Block by block into one buffer of the declared size (earlier blocks stay
    // in place as the window), writing every ~256 KiB while it is still in the
    // CPU cache: writing the whole frame at the end copies it from memory again.
    // (A round buffer of the window's size, 2 MiB + a block for a level-3
    // frame, used less memory but more CPU: zstd then decodes with the older
    // bytes as an external dictionary; measured in docs/benchmarks/history.md.)
    constexpr size_t kFlush = 256 * 1024;
    ZSTD_DCtx* d = ts.dctx.get();
    const size_t begin = ZSTD_decompressBegin(d);
    if (ZSTD_isError(begin))
        failFrame(f, std::string("cannot start decoding: ") + ZSTD_getErrorName(begin));
    size_t inPos = 0, outPos = 0, flushed = 0;
    auto flush = [&] {
        if (f.hole)
            writeHole(f, ts.out.data() + flushed, outPos - flushed, w.outOffset + flushed, o);
        else
            writeOut(ts.out.data() + flushed, outPos - flushed, w.outOffset + flushed, o);
        flushed = outPos;
    };
    for (;;) {
        const size_t need = ZSTD_nextSrcSizeToDecompress(d);
        if (need == 0)
            break;  // frame complete, checksum verified
        if (need > csize - inPos)
            failFrame(f, "frame ends early at offset " + std::to_string(f.offset + csize) + " (truncated or corrupt)");
        if (inPos + need > inEnd) {
            // Moves the unread tail (part of a block) to the front, reads on.
            const size_t keep = inEnd - inPos;
            std::memmove(ts.in.data(), ts.in.data() + (inPos - inBase), keep);
            inBase = inPos;
            inEnd = std::min(csize, inBase + window);
            in_.readAt(ts.in.data() + keep, inEnd - inBase - keep, f.offset + inBase + keep);
        }
        const size_t n = ZSTD_decompressContinue(d, ts.out.data() + outPos, dsize - outPos, ts.in.data() + (inPos - inBase),
                                                 need);
        if (ZSTD_isError(n))
            failFrame(f, std::string("cannot decode: ") + ZSTD_getErrorName(n));
        inPos += need;
        outPos += n;
        if (outPos - flushed >= kFlush)
            flush();
    }
    if (outPos != dsize)
        failFrame(f, "decodes to " + std::to_string(outPos) + " bytes, not the declared " + std::to_string(dsize));
    if (inPos != csize)
        failFrame(f, "frame ends at offset " + std::to_string(f.offset + inPos) + ", before the end its blocks announce");
    if (f.hole || outPos > flushed)
        flush();
    compressedDone_ += f.compressedSize;
}

void Decoder::decodeBatch(const std::vector<Work>& batch)
{
    if (batch.empty())
        return;
    size_t threads = std::min<size_t>(size_t(options_.threads), batch.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto loop = [&](ThreadState& ts, size_t owner, bool reporter) {
        // A thread that stops gives its buffers back, so that the threads
        // still decoding only ever wait on threads that are decoding too.
        struct GiveBack {
            Decoder& d;
            ThreadState& ts;
            ~GiveBack() { d.releaseBuffers(ts); }
        } giveBack{*this, ts};
        try {
            if (!ts.dctx)
                ts.dctx = makeDCtx(snap_);
            for (;;) {
                if (stop)
                    return;
                if (job_.isCancelled())
                    throw Cancelled();
                const size_t k = next.fetch_add(1);
                if (k >= batch.size())
                    return;
                const ScannedFrame& f = batch[k].frame;
                if (!reserveWithinBudget(ts, inputWindowOf(f), outputOf(f), stop)) {
                    if (job_.isCancelled())
                        throw Cancelled();
                    return;
                }
                decodeSized(ts, owner, batch[k]);
                if (reporter)
                    reportProgress();
            }
        } catch (...) {
            std::lock_guard lock(errorMutex);
            if (!error)
                error = std::current_exception();
            stop = true;
        }
    };
    // Threads beyond what the budget can feed with this batch's largest frame
    // would only wait: start no more than fit.
    uint64_t largest = 1;
    for (const Work& w : batch)
        largest = std::max(largest, pooledBytes(w.frame));
    threads = std::clamp<size_t>(size_t(options_.memoryBudget / largest), 1, threads);
    std::vector<std::thread> helpers;
    for (size_t i = 1; i < threads; ++i)
        helpers.emplace_back([&, i] { loop(states_[i], i, false); });
    loop(states_[0], 0, true);
    for (auto& t : helpers)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

uint64_t Decoder::decodeStreaming(const ScannedFrame& f, uint64_t outOffset)
{
    constexpr size_t kIn = size_t(1) << 20, kOut = size_t(1) << 20;
    if (!streamCtx_)
        streamCtx_ = makeDCtx(snap_);
    ZSTD_DCtx_reset(streamCtx_.get(), ZSTD_reset_session_only);
    streamIn_.reserve(kIn);
    streamOut_.reserve(kOut);
    uint64_t readPos = f.offset;
    const uint64_t end = f.offset + f.compressedSize;
    uint64_t produced = 0;
    size_t lastRet = 1;
    while (readPos < end) {
        job_.checkCancel();
        const size_t want = size_t(std::min<uint64_t>(kIn, end - readPos));
        in_.readAt(streamIn_.data(), want, readPos);
        ZSTD_inBuffer input{streamIn_.data(), want, 0};
        while (input.pos < input.size || lastRet != 0) {
            ZSTD_outBuffer output{streamOut_.data(), kOut, 0};
            lastRet = ZSTD_decompressStream(streamCtx_.get(), &output, &input);
            if (ZSTD_isError(lastRet))
                failFrame(f, std::string("cannot decode: ") + ZSTD_getErrorName(lastRet));
            if (output.pos) {
                if (f.hole)
                    writeHole(f, streamOut_.data(), output.pos, outOffset + produced);
                else
                    writeOut(streamOut_.data(), output.pos, outOffset + produced);
                produced += output.pos;
            }
            if (lastRet == 0)
                break;  // frame complete
            if (input.pos == input.size && output.pos < output.size)
                break;  // needs more input
        }
        readPos += want;
        compressedDone_ += want;
        reportProgress();
    }
    if (lastRet != 0)
        failFrame(f, "frame ends early: the decoder needs more input (truncated or corrupt)");
    if (f.contentSize && produced != *f.contentSize)
        failFrame(f, "decodes to " + std::to_string(produced) + " bytes, not the declared "
                         + std::to_string(*f.contentSize));
    return produced;
}

SnapshotRestoreResult Decoder::run()
{
    const double wall0 = monotonicSeconds();
    const double cpu0 = processCpuSeconds();
    if (options_.threads < 1 || options_.threads > kMaxRestoreThreads)
        fail(out_, "thread count " + std::to_string(options_.threads) + " is outside 1.." + std::to_string(kMaxRestoreThreads));
    if (options_.memoryBudget < kMinRestoreMemoryBudget)
        fail(out_, "memory budget of " + std::to_string(options_.memoryBudget) + " bytes is below the "
                       + std::to_string(kMinRestoreMemoryBudget) + " minimum");
    SnapshotRestoreResult result;
    // A pipe or FIFO is refused at once, never waited for (InputFile.h).
    in_ = openSeekableInput(snap_, "restore reads frames at their offsets");
    fileSize_ = in_.size();
    result.inputBytes = fileSize_;

    // Header pass first: a corrupt header anywhere fails before any output.
    // It keeps nothing per frame; the decode walks the headers again.
    job_.beginStep("scan frames", snap_);
    uint64_t zstdFrames = 0;
    {
        FrameHeaderPass pass(in_);
        uint64_t seen = 0;
        while (auto f = pass.next()) {
            if (!f->skippable)
                ++zstdFrames;
            if ((++seen & 1023) == 0) {
                job_.checkCancel();
                job_.setStepProgress(pass.position(), fileSize_);
            }
        }
        result.seekTable = pass.sawSeekTable();
    }
    if (zstdFrames == 0)
        fail(snap_, fileSize_ == 0 ? "is empty: not a zstd file" : "holds no zstd frame");

    job_.beginStep("decode", out_);
    output_ = std::make_unique<OutputFile>(OutputFile::open(out_, [this] { job_.checkCancel(); }));
    inOrder_ = !output_->seekable();
    writeHoles_ = output_->kind() != OutputFile::Kind::Replace;
    states_.resize(size_t(options_.threads));
    if (!inOrder_)
        writes_ = std::make_unique<SerialWrites>(states_.size(), [this](const char* data, size_t size, uint64_t at) {
            output_->file().writeAt(data, size, at);
        });
    uint64_t outPos = 0;
    std::vector<Work> batch;
    batch.reserve(kMaxBatchFrames);
    FrameHeaderPass pass(in_);
    uint64_t skippedSinceCheck = 0;
    while (auto next = pass.next()) {
        const ScannedFrame& f = *next;
        if (f.skippable) {
            ++result.skippableFrames;
            compressedDone_ += f.compressedSize;
            // A run of skippable frames decodes nothing: cancel and progress
            // are still checked while it passes.
            if ((++skippedSinceCheck & 1023) == 0) {
                job_.checkCancel();
                reportProgress();
            }
            continue;
        }
        ++result.zstdFrames;
        // A frame decoded in parallel holds its decoded bytes and a window of its compressed ones;
        // one that alone would not fit in the budget is streamed instead.
        const bool pooled = !inOrder_ && f.contentSize && *f.contentSize <= kMaxPooledFrameSize
            && f.compressedSize <= ZSTD_compressBound(size_t(kMaxPooledFrameSize))
            && pooledBytes(f) <= options_.memoryBudget;
        if (pooled) {
            batch.push_back({f, outPos});
            outPos += *f.contentSize;
            ++result.sizedFrames;
            if (batch.size() == kMaxBatchFrames) {
                decodeBatch(batch);
                batch.clear();
            }
        } else {
            decodeBatch(batch);
            batch.clear();
            outPos += decodeStreaming(f, outPos);
            ++result.streamedFrames;
        }
        if (f.hole)
            result.holeBytes += f.contentSize.value_or(0);
    }
    decodeBatch(batch);
    job_.checkCancel();
    // Extends a fresh file over a trailing hole (pwrite never reached it); a
    // block device keeps its size.
    if (output_->kind() == OutputFile::Kind::Replace)
        output_->file().truncate(outPos);
    output_->commit();
    result.outputBytes = outPos;
    result.wallSeconds = monotonicSeconds() - wall0;
    result.cpuSeconds = processCpuSeconds() - cpu0;
    job_.setStepProgress(1.0);
    return result;
}

} // namespace

SnapshotRestoreResult restoreSnapshot(const std::string& snap, const std::string& out,
                                      const SnapshotRestoreOptions& options, Job& job)
{
    Decoder d(snap, out, options, job);
    return d.run();
}

} // namespace cs
