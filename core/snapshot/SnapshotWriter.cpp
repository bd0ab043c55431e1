// The snapshot writer: N workers each take the next piece of the input (in
// input order, under one lock), read and compress it with their own context
// into a pooled output buffer, and hand it to the ordered writer. Whichever
// worker delivers the next piece in order writes every piece that is ready.
//
// Invariant that rules out a deadlock on the pool: a worker acquires its
// output buffer BEFORE it takes a piece index, so the piece the writer waits
// for always already owns a buffer.
#include "core/snapshot/Snapshot.h"
#include "core/snapshot/SnapshotInternal.h"

#include "core/jobs/Job.h"
#include "core/util/Error.h"
#include "core/util/InputFile.h"

#include <zstd.h>

#include <atomic>
#include <exception>
#include <map>
#include <thread>

namespace cs {
using namespace snapshot;

namespace {

struct Piece {
    uint64_t index = 0;
    uint64_t offset = 0;     // in the input
    uint64_t length = 0;
    bool hole = false;
    bool readDone = false;   // already read (sequential input)
};

struct Ready {
    std::unique_ptr<Buffer> buffer;
    size_t size = 0;           // bytes to write
    size_t markerSize = 0;     // hole marker bytes at the start of the buffer
    uint64_t inputLength = 0;
    bool hole = false;
};

class Writer {
public:
    Writer(const std::string& src, const std::string& out, const SnapshotWriteOptions& o, Job& job)
        : src_(src), out_(out), options_(o), job_(job)
    {
    }
    SnapshotWriteResult run();

private:
    void worker();
    bool takePiece(Piece& p, Buffer& in);
    void deliver(uint64_t index, Ready ready);
    void writeReady(Ready& r);
    void stopWith(std::exception_ptr e);
    std::string zeroFrame(ZSTD_CCtx* cctx, Buffer& in, uint64_t length);

    const std::string src_, out_;
    const SnapshotWriteOptions options_;
    Job& job_;

    InputFile in_;   // a stream (pipe, FIFO, -) is read in order, cancellably
    std::unique_ptr<SparseScan> sparse_;
    std::unique_ptr<OutputFile> temp_;   // written in order: any output works
    std::unique_ptr<BufferPool> pool_;
    size_t inCapacity_ = 0;

    // Dispenser (input order).
    std::mutex takeMutex_;
    uint64_t nextIndex_ = 0;
    uint64_t nextOffset_ = 0;
    Extent extent_;
    bool inputEnd_ = false;

    // Ordered writer.
    std::mutex writeMutex_;
    std::condition_variable progressed_;
    std::map<uint64_t, Ready> ready_;
    uint64_t nextToWrite_ = 0;
    bool draining_ = false;
    uint64_t outputBytes_ = 0;
    std::atomic<uint64_t> inputDone_{0};
    SeekTableWriter seek_;
    SnapshotWriteResult result_;

    std::mutex zeroMutex_;
    std::string zeroChunkFrame_;  // zero frame of exactly `chunk` bytes, made once

    std::atomic<bool> stop_{false};
    std::mutex errorMutex_;
    std::exception_ptr error_;
    int running_ = 0;
};

void Writer::stopWith(std::exception_ptr e)
{
    {
        std::lock_guard lock(errorMutex_);
        if (!error_)
            error_ = e;
    }
    stop_ = true;
    pool_->shutdown();
    progressed_.notify_all();
}

bool Writer::takePiece(Piece& p, Buffer& in)
{
    std::lock_guard lock(takeMutex_);
    if (stop_ || inputEnd_)
        return false;
    p = Piece{};
    p.index = nextIndex_;
    p.offset = nextOffset_;
    if (in_.regular()) {
        if (nextOffset_ >= in_.size()) {
            // An empty input still gets one (empty) frame: stock zstd rejects an empty file.
            if (in_.size() != 0 || nextIndex_ != 0) {
                inputEnd_ = true;
                return false;
            }
            inputEnd_ = true;
        } else {
            if (nextOffset_ >= extent_.offset + extent_.length)
                extent_ = sparse_->extentAt(nextOffset_);
            p.hole = extent_.hole;
            p.length = std::min<uint64_t>(options_.chunk, extent_.offset + extent_.length - nextOffset_);
        }
    } else {
        // Sequential input (pipe, character device): read under the lock, in order.
        in.reserve(inCapacity_);
        size_t got = 0;
        while (got < options_.chunk) {
            const size_t n = in_.readSome(in.data() + got, size_t(options_.chunk - got));
            if (n == 0) {
                inputEnd_ = true;
                break;
            }
            got += n;
        }
        if (got == 0 && nextIndex_ != 0)
            return false;
        p.length = got;
        p.readDone = true;
    }
    ++nextIndex_;
    nextOffset_ += p.length;
    return true;
}

std::string Writer::zeroFrame(ZSTD_CCtx* cctx, Buffer& in, uint64_t length)
{
    if (length == options_.chunk) {
        std::lock_guard lock(zeroMutex_);
        if (!zeroChunkFrame_.empty())
            return zeroChunkFrame_;
    }
    in.reserve(inCapacity_);
    std::memset(in.data(), 0, size_t(length));
    std::string frame(ZSTD_compressBound(size_t(length)), '\0');
    const size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), in.data(), size_t(length));
    if (ZSTD_isError(n))
        fail(out_, std::string("cannot compress a hole: ") + ZSTD_getErrorName(n));
    frame.resize(n);
    if (length == options_.chunk) {
        std::lock_guard lock(zeroMutex_);
        zeroChunkFrame_ = frame;
    }
    return frame;
}

void Writer::worker()
{
    try {
        std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
        if (!cctx)
            fail(out_, "cannot create a compression context (out of memory)");
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, options_.level);
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
        Buffer in;
        while (!stop_) {
            if (job_.isCancelled()) {
                stopWith(nullptr);
                break;
            }
            auto outBuf = pool_->acquire();
            if (!outBuf)
                break;
            Piece p;
            if (!takePiece(p, in)) {
                pool_->release(std::move(outBuf));
                break;
            }
            Ready r;
            r.inputLength = p.length;
            r.hole = p.hole;
            char* dst = outBuf->data();
            size_t cap = outBuf->capacity();
            if (p.hole) {
                const std::string zero = zeroFrame(cctx.get(), in, p.length);
                std::string marker;
                appendLE32(marker, kHoleMarkerMagic);
                appendLE32(marker, kHoleMarkerPayloadSize);
                marker += "hole";
                appendLE64(marker, p.length);
                if (marker.size() + zero.size() > cap)
                    fail(out_, "internal error: hole frame larger than its buffer");
                std::memcpy(dst, marker.data(), marker.size());
                std::memcpy(dst + marker.size(), zero.data(), zero.size());
                r.markerSize = marker.size();
                r.size = marker.size() + zero.size();
            } else {
                if (!p.readDone) {
                    in.reserve(inCapacity_);
                    const size_t got = in_.file().readSomeAt(in.data(), size_t(p.length), p.offset);
                    if (got != p.length)
                        failAt(src_, p.offset + got, "file got shorter while it was being read");
                }
                const size_t n = ZSTD_compress2(cctx.get(), dst, cap, in.data(), size_t(p.length));
                if (ZSTD_isError(n))
                    failAt(src_, p.offset, std::string("compression failed: ") + ZSTD_getErrorName(n));
                r.size = n;
            }
            r.buffer = std::move(outBuf);
            deliver(p.index, std::move(r));
        }
    } catch (...) {
        stopWith(std::current_exception());
    }
    std::lock_guard lock(writeMutex_);
    --running_;
    progressed_.notify_all();
}

void Writer::writeReady(Ready& r)
{
    temp_->writeAll(r.buffer->data(), r.size);
    const size_t frameSize = r.size - r.markerSize;
    // The frame's last 4 bytes are its checksum: the low 32 bits of XXH64 of
    // the content, exactly what the seekable format stores.
    const uint32_t checksum = readLE32(r.buffer->data() + r.size - 4);
    if (options_.seekTable) {
        if (r.size > UINT32_MAX)
            fail(out_, "frame too large for a seek table entry");
        seek_.add(uint32_t(r.size), uint32_t(r.inputLength), checksum);
    }
    (void)frameSize;
    result_.frames += r.markerSize ? 2 : 1;
    if (r.hole) {
        ++result_.holeFrames;
        result_.holeBytes += r.inputLength;
    } else {
        ++result_.dataFrames;
    }
    outputBytes_ += r.size;
    result_.inputBytes += r.inputLength;
    inputDone_ += r.inputLength;
}

void Writer::deliver(uint64_t index, Ready ready)
{
    std::unique_lock lock(writeMutex_);
    ready_.emplace(index, std::move(ready));
    if (draining_)
        return;
    draining_ = true;
    for (;;) {
        auto it = ready_.find(nextToWrite_);
        if (it == ready_.end() || stop_)
            break;
        Ready r = std::move(it->second);
        ready_.erase(it);
        lock.unlock();
        try {
            writeReady(r);
        } catch (...) {
            pool_->release(std::move(r.buffer));
            lock.lock();
            draining_ = false;
            throw;
        }
        pool_->release(std::move(r.buffer));
        lock.lock();
        ++nextToWrite_;
    }
    draining_ = false;
    progressed_.notify_all();
}

SnapshotWriteResult Writer::run()
{
    const double wall0 = monotonicSeconds();
    const double cpu0 = processCpuSeconds();
    if (options_.chunk < kMinSnapshotChunk || options_.chunk > kMaxSnapshotChunk)
        fail(out_, "chunk size " + std::to_string(options_.chunk) + " is outside 1 KiB..1 GiB");
    if (options_.threads < 1 || options_.threads > 256)
        fail(out_, "thread count " + std::to_string(options_.threads) + " is outside 1..256");
    if (options_.level < ZSTD_minCLevel() || options_.level > ZSTD_maxCLevel())
        fail(out_, "compression level " + std::to_string(options_.level) + " is outside "
                       + std::to_string(ZSTD_minCLevel()) + ".." + std::to_string(ZSTD_maxCLevel()));

    job_.beginStep("write snapshot", src_);
    // A FIFO with no writer yet opens at once; its first read waits, and a
    // cancel (Ctrl-C) stops that wait (InputFile).
    in_ = InputFile::open(src_, [this] { job_.checkCancel(); });
    if (in_.regular())
        sparse_ = std::make_unique<SparseScan>(in_.file().fd(), in_.size(), src_);
    // Buffers no larger than the input needs (a 1-byte input gets tiny ones).
    const uint64_t pieceMax = in_.regular() ? std::max<uint64_t>(1, std::min(options_.chunk, in_.size())) : options_.chunk;
    inCapacity_ = size_t(pieceMax);
    const size_t outCapacity = ZSTD_compressBound(size_t(pieceMax)) + 8 + kHoleMarkerPayloadSize;
    pool_ = std::make_unique<BufferPool>(outCapacity, size_t(2 * options_.threads));
    temp_ = std::make_unique<OutputFile>(OutputFile::open(out_, [this] { job_.checkCancel(); }));

    const int threads = options_.threads;
    running_ = threads;
    std::vector<std::thread> workers;
    workers.reserve(size_t(threads));
    for (int i = 0; i < threads; ++i)
        workers.emplace_back([this] { worker(); });
    {
        std::unique_lock lock(writeMutex_);
        while (running_ > 0) {
            progressed_.wait_for(lock, std::chrono::milliseconds(50));
            if (job_.isCancelled() && !stop_) {
                lock.unlock();
                stopWith(nullptr);
                lock.lock();
            }
            if (in_.size())
                job_.setStepProgress(double(inputDone_.load()) / double(in_.size()));
        }
    }
    for (auto& t : workers)
        t.join();
    if (error_)
        std::rethrow_exception(error_);
    job_.checkCancel();
    if (!ready_.empty())
        fail(out_, "internal error: " + std::to_string(ready_.size()) + " pieces were not written");
    if (options_.seekTable) {
        const std::string table = seek_.frame();
        temp_->writeAll(table.data(), table.size());
        outputBytes_ += table.size();
        result_.frames += 1;
        result_.seekTable = true;
    }
    job_.checkCancel();
    temp_->commit();
    result_.outputBytes = outputBytes_;
    result_.wallSeconds = monotonicSeconds() - wall0;
    result_.cpuSeconds = processCpuSeconds() - cpu0;
    job_.setStepProgress(1.0);
    return result_;
}

} // namespace

SnapshotWriteResult writeSnapshot(const std::string& src, const std::string& out, const SnapshotWriteOptions& options,
                                  Job& job)
{
    Writer w(src, out, options, job);
    return w.run();
}

} // namespace cs
