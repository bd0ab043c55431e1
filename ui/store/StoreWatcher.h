// Notices changes other processes make to a store: polls the catalog's entry
// change counters (core/store/ChangeCounters.h, one row of a table the
// catalog's triggers keep) every kIntervalMs on a worker thread, through a
// connection of its own opened there, and emits changed() when they moved.
// A poll still running when the timer fires is not doubled, and nothing is
// read on the GUI thread.
#pragma once
#include "core/store/ChangeCounters.h"
#include "ui/jobs/Background.h"

#include <QString>

#include <QObject>

#include <memory>

class QTimer;

namespace ui {

class StoreWatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 1000;

    explicit StoreWatcher(const QString& storeDir, QObject* parent = nullptr);

    void setInterval(int ms);
    // While paused (this process is changing the store itself) no poll runs.
    void setPaused(bool paused);
    bool isPaused() const { return paused_; }
    // The counters as they are now become the ones already seen (after this
    // process refreshed everything itself): read off the GUI thread, no
    // changed() for them.
    void rebaseline();
    // Counters last read (for tests).
    cs::store::EntryChangeCounters seen() const { return seen_; }
    bool hasSeen() const { return known_; }

Q_SIGNALS:
    void changed();
    // Every poll that read the counters (for tests).
    void polled();

private:
    void poll(bool baseline);

    // Opened by the first poll, on its worker thread; shared with the polls in flight.
    struct Reader;
    std::shared_ptr<Reader> reader_;
    QTimer* timer_;
    cs::store::EntryChangeCounters seen_;
    bool known_ = false;
    bool paused_ = false;
    bool inFlight_ = false;
    bool baselinePending_ = false;
    int epoch_ = 0;   // bumped by rebaseline(): results of older polls are dropped
    Background background_;
};

} // namespace ui
