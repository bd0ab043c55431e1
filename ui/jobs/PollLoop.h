// The one poll loop behind the GUI's "follow what other processes change":
// every interval it reads a stamp on a worker thread (through Background),
// compares it with the last one seen, and calls changed() on the GUI thread
// when it moved. A poll still running when the timer fires is not doubled,
// nothing is read on the GUI thread, and a read that throws (a catalog
// damaged or gone, a server unreachable) is a poll skipped: the views say
// why on their next read. StoreWatcher (a native store's change counters)
// and ActionsWatcher (a cache server's change stamp) are this loop with
// their own stamp.
//
// read runs on a worker thread and may outlive the owner's object while a
// poll is in flight: it must hold what it reads (shared_ptr captures).
#pragma once
#include "ui/jobs/Background.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace ui {

template <typename Stamp>
class PollLoop {
public:
    using Read = std::function<Stamp()>;

    // owner parents the timer; changed and polled are called on the GUI
    // thread (polled after every read, for tests). The stamp as it is now
    // is read at once and is not a change.
    PollLoop(QObject* owner, Read read, int intervalMs, std::function<void()> changed, std::function<void()> polled)
        : read_(std::make_shared<Read>(std::move(read))), timer_(new QTimer(owner)), changed_(std::move(changed)),
          polled_(std::move(polled))
    {
        timer_->setInterval(intervalMs);
        QObject::connect(timer_, &QTimer::timeout, owner, [this] { poll(false); });
        timer_->start();
        poll(true);
    }
    PollLoop(const PollLoop&) = delete;
    PollLoop& operator=(const PollLoop&) = delete;

    void setInterval(int ms) { timer_->setInterval(ms); }
    // While paused (the owner's process is changing the data itself) no poll runs.
    void setPaused(bool paused) { paused_ = paused; }
    bool isPaused() const { return paused_; }
    // The stamp as it is now becomes the one already seen (after the owner
    // refreshed everything itself): read off the GUI thread, no changed()
    // for it; results of polls already running are dropped.
    void rebaseline()
    {
        ++epoch_;
        inFlight_ = false;
        poll(true);
    }
    const Stamp& seen() const { return seen_; }
    bool hasSeen() const { return known_; }

private:
    void poll(bool baseline)
    {
        if (baseline)
            baselinePending_ = true;
        if (inFlight_ || (paused_ && !baselinePending_))
            return;
        inFlight_ = true;
        const bool takeAsBaseline = std::exchange(baselinePending_, false);
        const int epoch = epoch_;
        using Result = std::optional<Stamp>;
        background_.run(
            [read = read_]() -> Result {
                try {
                    return (*read)();
                } catch (const std::exception&) {
                    return std::nullopt;
                }
            },
            [this, epoch, takeAsBaseline](const Result& r) {
                if (epoch != epoch_)
                    return;
                inFlight_ = false;
                if (!r)
                    return;
                const bool moved = known_ && !(*r == seen_);
                seen_ = *r;
                known_ = true;
                polled_();
                if (moved && !takeAsBaseline && !paused_)
                    changed_();
                if (baselinePending_)
                    poll(true);
            });
    }

    std::shared_ptr<Read> read_;
    QTimer* timer_;
    std::function<void()> changed_, polled_;
    Stamp seen_{};
    bool known_ = false;
    bool paused_ = false;
    bool inFlight_ = false;
    bool baselinePending_ = false;
    int epoch_ = 0;
    Background background_;   // last: destroyed first, so no result arrives after the members above
};

} // namespace ui
