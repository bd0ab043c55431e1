#include "ui/bench/BootProfiler.h"

#include "core/bench/Bench.h"
#include "ui/shell/StallMonitor.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFile>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <QWidget>

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ui {

namespace {

qint64 clockNs(clockid_t id)
{
    timespec ts{};
    clock_gettime(id, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Field 22 of /proc/self/stat: start time in clock ticks after boot.
qint64 processStartBoottimeNs()
{
    std::ifstream in("/proc/self/stat");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = all.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos)
        return 0;
    std::istringstream rest(all.substr(close + 2));
    std::string field;
    // After ")": field 3 (state) is the first; starttime is field 22.
    for (int i = 3; i <= 22 && (rest >> field); ++i) {
    }
    const long ticks = sysconf(_SC_CLK_TCK);
    return ticks > 0 ? qint64(std::stoll(field)) * (1000000000 / ticks) : 0;
}

} // namespace

BootProfiler::BootProfiler(QWidget* window, const QString& outputPath, double idleSeconds, QObject* parent)
    : QObject(parent), window_(window), output_(outputPath), idleSeconds_(idleSeconds),
      monitor_(new StallMonitor(this))
{
    bool ok = false;
    const qint64 parentT0 = qEnvironmentVariable("CACHESCOPE_BOOT_T0").toLongLong(&ok);
    if (ok && parentT0 > 0) {
        t0Ns_ = parentT0;
        fromParent_ = true;
    } else {
        t0Ns_ = processStartBoottimeNs();
    }
    window_->installEventFilter(this);
    // The monitor measures the event loop: start it once the loop runs.
    QTimer::singleShot(0, monitor_, &StallMonitor::start);
}

double BootProfiler::msSinceStart() const
{
    const qint64 now = clockNs(fromParent_ ? CLOCK_MONOTONIC : CLOCK_BOOTTIME);
    return double(now - t0Ns_) / 1e6;
}

bool BootProfiler::eventFilter(QObject* watched, QEvent* event)
{
    if (!painted_ && watched == window_ && event->type() == QEvent::Paint) {
        painted_ = true;
        // Queued: runs once this paint (and its flush) has finished.
        QMetaObject::invokeMethod(this, &BootProfiler::firstPainted, Qt::QueuedConnection);
    }
    return QObject::eventFilter(watched, event);
}

void BootProfiler::firstPainted()
{
    firstPaintMs_ = msSinceStart();
    firstPaintCpuMs_ = cs::processCpuSeconds() * 1000;
    window_->removeEventFilter(this);
    stallBeforePaint_ = monitor_->longestStallMs();
    monitor_->reset();
    QTimer::singleShot(int(idleSeconds_ * 1000), this, &BootProfiler::finish);
}

void BootProfiler::finish()
{
    const int afterPaint = monitor_->longestStallMs();
    QJsonObject o{
        {QStringLiteral("first_paint_ms"), firstPaintMs_},
        {QStringLiteral("first_paint_cpu_ms"), firstPaintCpuMs_},
        {QStringLiteral("t0_source"), fromParent_ ? QStringLiteral("parent") : QStringLiteral("proc")},
        {QStringLiteral("idle_seconds"), idleSeconds_},
        {QStringLiteral("idle_rss_bytes"), double(cs::currentRssBytes())},
        {QStringLiteral("peak_rss_bytes"), double(cs::peakRssBytes())},
        {QStringLiteral("longest_stall_ms"), std::max(stallBeforePaint_, afterPaint)},
        {QStringLiteral("longest_stall_after_paint_ms"), afterPaint},
        {QStringLiteral("platform"), QGuiApplication::platformName()},
    };
    QFile f(output_);
    const bool ok = f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                    f.write(QJsonDocument(o).toJson()) > 0 && f.flush();
    if (!ok)
        qWarning("cachescope: %s: cannot write the boot profile: %s", qPrintable(output_), qPrintable(f.errorString()));
    QCoreApplication::exit(ok ? 0 : 1);
}

} // namespace ui
