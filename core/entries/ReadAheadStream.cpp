#include "core/entries/ReadAheadStream.h"

#include <algorithm>
#include <cstring>

namespace cs::entries {

ReadAheadStream::ReadAheadStream(ByteStream& in) : in_(in), slots_(kSlots)
{
    for (auto& s : slots_)
        s.bytes.resize(kSlotBytes);
    thread_ = std::thread([this] { fill(); });
}

ReadAheadStream::~ReadAheadStream()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void ReadAheadStream::fill()
{
    for (;;) {
        Slot* slot = nullptr;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [this] { return stop_ || filled_ - taken_ < kSlots; });
            if (stop_)
                return;
            slot = &slots_[filled_ % kSlots];
        }
        // The slot is the thread's alone until filled_ moves past it.
        size_t got = 0;
        bool end = false;
        std::exception_ptr error;
        try {
            while (got < slot->bytes.size() && !end) {
                const size_t n = in_.read(slot->bytes.data() + got, slot->bytes.size() - got);
                got += n;
                end = n == 0;
            }
        } catch (...) {
            error = std::current_exception();   // after the bytes before it
        }
        {
            std::lock_guard lock(mutex_);
            slot->size = got;
            if (got > 0)
                ++filled_;
            if (error || end) {
                error_ = error;
                ended_ = true;
            }
        }
        changed_.notify_all();
        if (error || end)
            return;
    }
}

size_t ReadAheadStream::read(void* buf, size_t n)
{
    auto* out = static_cast<char*>(buf);
    size_t done = 0;
    while (done < n) {
        Slot* slot = nullptr;
        {
            std::unique_lock lock(mutex_);
            // Hand out what is here rather than wait for more.
            if (done > 0 && filled_ == taken_)
                break;
            changed_.wait(lock, [this] { return filled_ > taken_ || ended_; });
            if (filled_ == taken_) {
                // Everything before the end (or the error) was handed out.
                if (error_)
                    std::rethrow_exception(error_);
                break;
            }
            slot = &slots_[taken_ % kSlots];
        }
        const size_t k = std::min(n - done, slot->size - within_);
        std::memcpy(out + done, slot->bytes.data() + within_, k);
        done += k;
        within_ += k;
        if (within_ == slot->size) {
            within_ = 0;
            {
                std::lock_guard lock(mutex_);
                ++taken_;
            }
            changed_.notify_all();
        }
    }
    handedOut_ += done;
    return done;
}

} // namespace cs::entries
