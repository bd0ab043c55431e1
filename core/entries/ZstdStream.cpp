#define ZSTD_STATIC_LINKING_ONLY
#include "core/entries/ZstdStream.h"

#include "core/util/Error.h"
#include "core/util/Units.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>

namespace cs::entries {

struct ZstdStream::State {
    ZSTD_DCtx* dctx = nullptr;
    std::unique_ptr<uint8_t[]> buf{new uint8_t[kInputBuffer]};
    ZSTD_inBuffer in{nullptr, 0, 0};
    ~State() { ZSTD_freeDCtx(dctx); }
    size_t available() const { return in.size - in.pos; }
};

namespace {

unsigned ceilLog2(uint64_t v)
{
    unsigned log = 0;
    while (log < 63 && (uint64_t(1) << log) < v)
        ++log;
    return log;
}

// The window a zstd frame header declares (RFC 8878 3.1.1.1.2), read here
// for the frames libzstd refuses to describe (windowLog above 31).
uint64_t declaredWindow(const uint8_t* p, size_t n)
{
    if (n < 6 || (p[4] & 0x20))
        return 0; // single segment: the window is the content size, which libzstd reads
    const unsigned log = 10 + (p[5] >> 3);
    const uint64_t base = uint64_t(1) << std::min(log, 62u);
    return base + (base / 8) * (p[5] & 7);
}

} // namespace

ZstdStream::ZstdStream(ByteStream& in, std::string name, uint64_t memoryBudget)
    : s_(std::make_unique<State>()), in_(in), name_(std::move(name)), budget_(std::min(memoryBudget, kMaxWindow))
{
    s_->dctx = ZSTD_createDCtx();
    if (!s_->dctx)
        throw Error(name_ + ": cannot create a zstd decoder (out of memory)");
    s_->in.src = s_->buf.get();
    // Our own check in startFrame() names the window first; this is libzstd's
    // second guard (window sizes need not be powers of two, hence ceil).
    const unsigned logMax = std::clamp<unsigned>(ceilLog2(std::max<uint64_t>(budget_, 1)), 10u,
                                                 unsigned(ZSTD_WINDOWLOG_MAX));
    ZSTD_DCtx_setParameter(s_->dctx, ZSTD_d_windowLogMax, int(logMax));
}

ZstdStream::~ZstdStream() = default;

// Moves what is left to the front and reads behind it; false at the end.
bool ZstdStream::fillInput()
{
    if (inputEnded_)
        return false;
    auto& in = s_->in;
    const size_t left = s_->available();
    if (left > 0 && in.pos > 0)
        std::memmove(s_->buf.get(), s_->buf.get() + in.pos, left);
    in.pos = 0;
    in.size = left;
    const size_t got = in_.read(s_->buf.get() + left, kInputBuffer - left);
    if (got == 0) {
        inputEnded_ = true;
        return false;
    }
    in.size += got;
    return true;
}

void ZstdStream::startFrame()
{
    while (s_->available() < ZSTD_FRAMEHEADERSIZE_MAX && fillInput()) {
    }
    const uint8_t* p = static_cast<const uint8_t*>(s_->in.src) + s_->in.pos;
    ZSTD_frameHeader h;
    size_t r = ZSTD_getFrameHeader(&h, p, s_->available());
    const std::string frame = "frame " + std::to_string(frames_) + " at offset " + std::to_string(consumed_);
    if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge) {
        h.frameType = ZSTD_frame;
        h.windowSize = declaredWindow(p, s_->available());
        r = 0;
    } else if (ZSTD_isError(r))
        failAt(name_, consumed_,
               frames_ == 0 ? std::string("not a zstd stream (no zstd frame magic)")
                            : "bytes after the last zstd frame start no frame (" + std::string(ZSTD_getErrorName(r)) +
                                  ")");
    if (r > 0)
        failAt(name_, consumed_, "the zstd stream ends inside the header of " + frame);
    if (h.frameType == ZSTD_frame) {
        ++dataFrames_;
        if (h.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN)
            ++unsized_;
        largestWindow_ = std::max<uint64_t>(largestWindow_, h.windowSize);
        if (h.windowSize > kMaxWindow)
            failAt(name_, consumed_,
                   frame + " declares a " + formatSize(h.windowSize) + " window, above the " + formatSize(kMaxWindow) +
                       " cachescope decodes at all");
        if (h.windowSize > budget_)
            failAt(name_, consumed_,
                   frame + " declares a " + formatSize(h.windowSize) + " window (zstd --long=" +
                       std::to_string(ceilLog2(h.windowSize)) + "), above the memory budget of " +
                       formatSize(budget_) + "; give --memory " + std::to_string((h.windowSize + (1 << 20) - 1) >> 20) +
                       "MiB or more to read it");
    }
    frameStart_ = consumed_;
    ++frames_;
    inFrame_ = true;
}

size_t ZstdStream::read(void* buf, size_t n)
{
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0 && n > 0) {
        if (!inFrame_) {
            if (s_->available() == 0 && !fillInput())
                return 0;
            startFrame();
        }
        if (s_->available() == 0)
            fillInput();
        const size_t before = s_->in.pos;
        const size_t r = ZSTD_decompressStream(s_->dctx, &out, &s_->in);
        consumed_ += s_->in.pos - before;
        if (ZSTD_isError(r))
            failAt(name_, consumed_,
                   "zstd frame " + std::to_string(frames_ - 1) + " (at offset " + std::to_string(frameStart_) +
                       "): " + ZSTD_getErrorName(r));
        if (r == 0)
            inFrame_ = false;
        else if (out.pos == 0 && s_->in.pos == before && inputEnded_)
            failAt(name_, consumed_,
                   "the zstd stream ends inside frame " + std::to_string(frames_ - 1) + " (which starts at offset " +
                       std::to_string(frameStart_) + "): the blob is truncated");
    }
    decoded_ += out.pos;
    return out.pos;
}

} // namespace cs::entries
