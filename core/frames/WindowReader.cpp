#include "core/frames/FrameReading.h"

#include "core/util/Error.h"
#include "core/util/File.h"

#include <algorithm>

namespace cs::frames {

namespace {
constexpr size_t kMinWindow = 64;
constexpr size_t kMaxWindow = 64 * 1024;
} // namespace

// The buffer is not zero-filled: only the pages a read touches get memory.
WindowReader::WindowReader(FrameSource& source, uint64_t fileSize)
    : source_(source), fileSize_(fileSize), buf_(new uint8_t[kMaxWindow])
{
}

const uint8_t* WindowReader::at(uint64_t offset, size_t n, size_t* got, size_t hint)
{
    if (n > kMaxWindow)
        n = kMaxWindow;
    const uint64_t available = offset < fileSize_ ? fileSize_ - offset : 0;
    const size_t want = size_t(std::min<uint64_t>(n, available));
    if (!holds(offset, want)) {
        // Only the bytes asked for are copied (plus the hint): reading far
        // ahead costs more in copies than it saves in system calls when the
        // next header is further away than the window.
        const size_t len = size_t(std::min<uint64_t>(std::clamp(std::max(hint, n), kMinWindow, kMaxWindow), available));
        bufLen_ = len ? source_.readSomeAt(buf_.get(), len, offset) : 0;
        bufOffset_ = offset;
    }
    const uint64_t inWindow = offset >= bufOffset_ && offset <= bufOffset_ + bufLen_ ? bufOffset_ + bufLen_ - offset : 0;
    *got = size_t(std::min<uint64_t>(want, inWindow));
    return buf_.get() + (offset - bufOffset_ <= bufLen_ ? offset - bufOffset_ : 0);
}

void ScanContext::failAt(uint64_t offset, const std::string& what) const
{
    cs::failAt(path, offset, "frame " + std::to_string(frameIndex) + ": " + what);
}

} // namespace cs::frames
