// `cachescope --profile-boot FILE [--profile-idle SECONDS]`: measures the
// GUI's own start for the `boot` benchmark scenario and writes FILE as JSON:
//   first_paint_ms               first painted main window, ms since process start
//   first_paint_cpu_ms           CPU time (user + system) the process used until then
//   t0_source                    "parent" (CACHESCOPE_BOOT_T0, CLOCK_MONOTONIC ns set
//                                by the launcher just before it spawned us) or
//                                "proc" (/proc/self/stat starttime, 10 ms ticks)
//   idle_seconds, idle_rss_bytes RSS after idling that long after the first paint
//   longest_stall_ms             longest main-thread stall (StallMonitor) since the
//                                event loop started; ..._after_paint_ms after the first paint
//   platform                     the Qt platform plugin
// then quits the application (exit code 0; 1 when FILE cannot be written).
#pragma once
#include <QObject>
#include <QString>

class QWidget;

namespace ui {
class StallMonitor;

class BootProfiler : public QObject {
    Q_OBJECT
public:
    BootProfiler(QWidget* window, const QString& outputPath, double idleSeconds, QObject* parent = nullptr);

    // Milliseconds since the process started (see t0_source).
    double msSinceStart() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void firstPainted();
    void finish();

    QWidget* window_;
    QString output_;
    double idleSeconds_;
    StallMonitor* monitor_;
    qint64 t0Ns_ = 0;           // CLOCK_MONOTONIC (parent) or CLOCK_BOOTTIME (proc)
    bool fromParent_ = false;
    bool painted_ = false;
    double firstPaintMs_ = -1;
    double firstPaintCpuMs_ = -1;
    int stallBeforePaint_ = 0;
};

} // namespace ui
