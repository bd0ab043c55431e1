// Background work of the GUI (ui/jobs/Background.h): it runs on a pool of
// its own at a lower priority, so Qt's painting, which borrows the global
// thread pool and waits for it, never queues behind a catalog scan or a GC.
#include "common/TestSupport.h"
#include "ui/jobs/Background.h"

#include <QPainter>
#include <QSemaphore>
#include <QThreadPool>
#include <QWidget>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

// A big widget whose paint fills large areas (the raster engine spreads such
// fills over the global thread pool).
class FillWidget : public QWidget {
public:
    FillWidget() { resize(2400, 2400); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        for (int i = 0; i < 8; ++i)
            p.fillRect(rect().adjusted(i, i, -i, -i), i % 2 ? Qt::white : QColor(30, 120, 200, 200));
        p.setPen(QPen(Qt::black, 3));
        for (int y = 0; y < height(); y += 40)
            p.drawLine(0, y, width(), y);
    }
};

} // namespace

class TestBackground : public QObject {
    Q_OBJECT
private slots:
    void runsOnItsOwnPool()
    {
        QSemaphore started, go;
        auto f = ui::runInBackground([&] {
            started.release();
            go.acquire();
            return 7;
        });
        started.acquire();
        const int global = QThreadPool::globalInstance()->activeThreadCount();
        const int own = ui::backgroundPool()->activeThreadCount();
        go.release(); // before any check can return
        QCOMPARE(f.result(), 7);
        QCOMPARE(global, 0);
        QVERIFY(own >= 1);
    }

    void runsAtALowerPriority()
    {
        const int gui = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
        auto f = ui::runInBackground([] { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); });
        QVERIFY2(f.result() >= std::max(10, gui), qPrintable(QString::number(f.result())));
    }

    void paintingGoesOnWhileEveryBackgroundThreadIsBusy()
    {
        // Occupy every thread of the background pool; painting a big widget
        // must not wait for them. A watchdog frees them after 10 s so a
        // regression fails instead of hanging.
        const int n = ui::backgroundPool()->maxThreadCount();
        QSemaphore started, go;
        std::vector<QFuture<int>> busy;
        for (int i = 0; i < n; ++i)
            busy.push_back(ui::runInBackground([&] {
                started.release();
                go.acquire();
                return 0;
            }));
        started.acquire(n);
        std::atomic<bool> painted{false}, watchdogFired{false};
        std::thread watchdog([&] {
            for (int i = 0; i < 1000 && !painted; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (!painted) {
                watchdogFired = true;
                go.release(n);
            }
        });
        FillWidget w;
        const QPixmap shot = w.grab();
        painted = true;
        watchdog.join();
        if (!watchdogFired)
            go.release(n);
        for (auto& f : busy)
            f.waitForFinished();
        QVERIFY(!shot.isNull());
        QVERIFY2(!watchdogFired, "painting waited for the background pool");
    }
};

CACHESCOPE_TEST_MAIN(TestBackground)
#include "tst_background.moc"
