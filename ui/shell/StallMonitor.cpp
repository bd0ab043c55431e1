#include "ui/shell/StallMonitor.h"

#include <algorithm>

namespace ui {

StallMonitor::StallMonitor(QObject* parent) : QObject(parent)
{
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(kIntervalMs);
    connect(&timer_, &QTimer::timeout, this, &StallMonitor::tick);
    secondOf_.fill(-1);
}

void StallMonitor::start()
{
    clock_.start();
    lastTickMs_ = 0;
    timer_.start();
}

void StallMonitor::stop()
{
    timer_.stop();
}

void StallMonitor::reset()
{
    longest_ = 0;
    perSecond_.fill(0);
    secondOf_.fill(-1);
    if (clock_.isValid())
        lastTickMs_ = clock_.elapsed();
    tick();
}

int StallMonitor::lastMinuteStallMs() const
{
    const qint64 nowSecond = clock_.isValid() ? clock_.elapsed() / 1000 : 0;
    int best = 0;
    for (size_t i = 0; i < perSecond_.size(); ++i)
        if (secondOf_[i] >= 0 && nowSecond - secondOf_[i] < 60)
            best = std::max(best, perSecond_[i]);
    return best;
}

QString StallMonitor::text() const
{
    return tr("UI stall: max %1 ms (last min %2 ms)").arg(longestStallMs()).arg(lastMinuteStallMs());
}

void StallMonitor::tick()
{
    if (!clock_.isValid())
        return;
    const qint64 now = clock_.elapsed();
    const int stall = int(std::max<qint64>(0, now - lastTickMs_ - kIntervalMs));
    lastTickMs_ = now;
    const qint64 second = now / 1000;
    const size_t slot = size_t(second % 60);
    if (secondOf_[slot] != second) {
        secondOf_[slot] = second;
        perSecond_[slot] = 0;
    }
    perSecond_[slot] = std::max(perSecond_[slot], stall);
    longest_ = std::max(longest_, stall);

    const int minute = lastMinuteStallMs();
    if (longest_ != reportedLongest_ || minute != reportedMinute_) {
        reportedLongest_ = longest_;
        reportedMinute_ = minute;
        Q_EMIT stallsChanged(longest_, minute);
    }
}

} // namespace ui
