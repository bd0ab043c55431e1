// Notices changes other processes make to a store: polls the catalog's entry
// change counters (core/store/ChangeCounters.h, one row of a table the
// catalog's triggers keep) every kIntervalMs through ui/jobs/PollLoop, with
// a connection of its own opened on the worker thread, and emits changed()
// when they moved.
#pragma once
#include "core/store/ChangeCounters.h"
#include "ui/jobs/PollLoop.h"

#include <QObject>
#include <QString>

namespace ui {

class StoreWatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 1000;

    explicit StoreWatcher(const QString& storeDir, QObject* parent = nullptr);

    void setInterval(int ms) { loop_.setInterval(ms); }
    // While paused (this process is changing the store itself) no poll runs.
    void setPaused(bool paused) { loop_.setPaused(paused); }
    bool isPaused() const { return loop_.isPaused(); }
    // The counters as they are now become the ones already seen (after this
    // process refreshed everything itself): read off the GUI thread, no
    // changed() for them.
    void rebaseline() { loop_.rebaseline(); }
    // Counters last read (for tests).
    cs::store::EntryChangeCounters seen() const { return loop_.seen(); }
    bool hasSeen() const { return loop_.hasSeen(); }

Q_SIGNALS:
    void changed();
    // Every poll that read the counters (for tests).
    void polled();

private:
    PollLoop<cs::store::EntryChangeCounters> loop_;
};

} // namespace ui
