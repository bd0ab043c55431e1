#include "ui/store/StoreWatcher.h"

#include <QTimer>

#include <mutex>
#include <optional>
#include <utility>

namespace ui {

struct StoreWatcher::Reader {
    std::string dir;
    std::mutex mutex;
    std::unique_ptr<cs::store::EntryChangeCounterReader> reader;

    cs::store::EntryChangeCounters read()
    {
        std::lock_guard lock(mutex);
        if (!reader)
            reader = std::make_unique<cs::store::EntryChangeCounterReader>(dir);
        return reader->read();
    }
};

StoreWatcher::StoreWatcher(const QString& storeDir, QObject* parent)
    : QObject(parent), reader_(std::make_shared<Reader>()), timer_(new QTimer(this))
{
    reader_->dir = storeDir.toStdString();
    timer_->setInterval(kIntervalMs);
    connect(timer_, &QTimer::timeout, this, [this] { poll(false); });
    timer_->start();
    poll(true);   // what is there at open is not a change
}

void StoreWatcher::setInterval(int ms)
{
    timer_->setInterval(ms);
}

void StoreWatcher::setPaused(bool paused)
{
    paused_ = paused;
}

void StoreWatcher::rebaseline()
{
    ++epoch_;
    inFlight_ = false;   // the running poll's result will be dropped
    poll(true);
}

void StoreWatcher::poll(bool baseline)
{
    if (baseline)
        baselinePending_ = true;
    if (inFlight_ || (paused_ && !baselinePending_))
        return;
    inFlight_ = true;
    const bool takeAsBaseline = std::exchange(baselinePending_, false);
    const int epoch = epoch_;
    using Result = std::optional<cs::store::EntryChangeCounters>;
    background_.run(
        [reader = reader_]() -> Result {
            try {
                return reader->read();
            } catch (const std::exception&) {
                return std::nullopt;
            }
        },
        [this, epoch, takeAsBaseline](const Result& r) {
            if (epoch != epoch_)
                return;
            inFlight_ = false;
            if (!r)
                return;   // a damaged or vanished catalog: the views report it on their next read
            const bool moved = known_ && *r != seen_;
            seen_ = *r;
            known_ = true;
            Q_EMIT polled();
            if (moved && !takeAsBaseline && !paused_)
                Q_EMIT changed();
            if (baselinePending_)
                poll(true);
        });
}

} // namespace ui
