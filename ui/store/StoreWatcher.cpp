#include "ui/store/StoreWatcher.h"

#include <memory>
#include <mutex>
#include <string>

namespace ui {

namespace {

// Opened by the first poll, on its worker thread; shared with the polls in flight.
struct CounterReader {
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

PollLoop<cs::store::EntryChangeCounters>::Read counterRead(const QString& storeDir)
{
    auto r = std::make_shared<CounterReader>();
    r->dir = storeDir.toStdString();
    return [r] { return r->read(); };
}

} // namespace

StoreWatcher::StoreWatcher(const QString& storeDir, QObject* parent)
    : QObject(parent),
      loop_(this, counterRead(storeDir), kIntervalMs, [this] { Q_EMIT changed(); }, [this] { Q_EMIT polled(); })
{
}

} // namespace ui
