// Measures how long the GUI thread was busy: a 10 ms heartbeat timer whose
// lateness (time between two ticks minus the interval) is a stall. Keeps the
// longest stall since start() and the longest in the last 60 s (one maximum
// per second in a ring of 60). Must live on the GUI thread.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <array>

namespace ui {

class StallMonitor : public QObject {
    Q_OBJECT
    Q_PROPERTY(int longestStallMs READ longestStallMs NOTIFY stallsChanged)
    Q_PROPERTY(int lastMinuteStallMs READ lastMinuteStallMs NOTIFY stallsChanged)
public:
    static constexpr int kIntervalMs = 10;

    explicit StallMonitor(QObject* parent = nullptr);

    void start();
    void stop();
    void reset();
    bool isRunning() const { return timer_.isActive(); }

    int longestStallMs() const { return longest_; }
    int lastMinuteStallMs() const;
    // "UI stall: max 12 ms (last min 3 ms)"
    QString text() const;

Q_SIGNALS:
    // Emitted when either figure changed (checked every tick; a stall shows at once).
    void stallsChanged(int longestMs, int lastMinuteMs);

private:
    void tick();

    QTimer timer_;
    QElapsedTimer clock_;
    qint64 lastTickMs_ = 0;
    int longest_ = 0;
    std::array<int, 60> perSecond_{};      // max stall of each second, indexed by second % 60
    std::array<qint64, 60> secondOf_{};    // which second a slot holds, to expire old ones
    int reportedLongest_ = -1;
    int reportedMinute_ = -1;
};

} // namespace ui
