// Background work of the GUI (ui/jobs/Background.h, WorkerPool.h,
// GuiInbox.h): work runs on a pool of its own (std::thread, not Qt's global
// pool, which no code of ours uses: ctest no_qt_threads) at a lower
// priority, so Qt's painting, which borrows the global thread pool and waits
// for it, never queues behind a catalog scan or a GC; results come back on
// the GUI thread in order, and never to an owner that is gone.
#include "common/TestSupport.h"
#include "ui/jobs/Background.h"
#include "ui/jobs/WorkerPool.h"

#include <QApplication>
#include <QEventLoop>
#include <QPainter>
#include <QThread>
#include <QTimer>
#include <QWidget>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <semaphore>
#include <thread>
#include <vector>

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

bool onGuiThread()
{
    return QThread::currentThread() == qApp->thread();
}

} // namespace

class TestBackground : public QObject {
    Q_OBJECT
private slots:
    void runsOnItsOwnPool()
    {
        ui::Background background;
        std::binary_semaphore started{0}, go{0};
        std::optional<int> result;
        background.run(
            [&] {
                started.release();
                go.acquire();
                return 7;
            },
            [&](int r) { result = r; });
        started.acquire();
        const int own = ui::WorkerPool::instance().busyThreads();
        go.release(); // before any check can return
        QTRY_VERIFY(result.has_value());
        QCOMPARE(*result, 7);
        QVERIFY(own >= 1);
    }

    void runsAtALowerPriority()
    {
        ui::Background background;
        const int gui = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
        std::optional<int> nice;
        background.run([] { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())); },
                       [&](int n) { nice = n; });
        QTRY_VERIFY(nice.has_value());
        QVERIFY2(*nice >= std::min(19, gui + 10), qPrintable(QString::number(*nice)));
    }

    // Relative to the nice value a thread starts with: a GUI run under
    // `nice -n 10` gets its workers at 19, not level with it at 10.
    void theLowerPriorityIsBelowTheStartingOne()
    {
        for (const int start : {0, 5, 10, 12, 19}) {
            int after = -100;
            std::thread t([&] {
                const id_t self = static_cast<id_t>(::gettid());
                if (::getpriority(PRIO_PROCESS, self) <= start)
                    ::setpriority(PRIO_PROCESS, self, start);   // raising a nice value needs no right
                const int begun = ::getpriority(PRIO_PROCESS, self);
                ui::lowerThisThreadsPriority();
                after = ::getpriority(PRIO_PROCESS, self) - std::min(19, begun + 10);
            });
            t.join();
            QVERIFY2(after == 0, qPrintable(QStringLiteral("from %1: %2 off").arg(start).arg(after)));
        }
    }

    void resultsAndReportsArriveOnTheGuiThreadInOrder()
    {
        ui::Background background;
        auto link = background.link();
        std::atomic<bool> workOnGui{true};
        std::vector<int> seen;
        bool allOnGui = true;
        background.run(
            [&, link] {
                workOnGui = onGuiThread();
                for (int i = 0; i < 100; ++i)
                    link.toGui([&, i] {
                        allOnGui = allOnGui && onGuiThread();
                        seen.push_back(i);
                    });
                return 100;
            },
            [&](int last) {
                allOnGui = allOnGui && onGuiThread();
                seen.push_back(last);
            });
        QTRY_COMPARE(seen.size(), size_t(101));
        for (int i = 0; i <= 100; ++i)
            QCOMPARE(seen[size_t(i)], i);
        QVERIFY(!workOnGui);
        QVERIFY(allOnGui);
    }

    void aResultForAnOwnerThatIsGoneIsDropped()
    {
        std::binary_semaphore go{0};
        std::atomic<bool> returned{false};
        bool delivered = false, reported = false;
        {
            ui::Background background;
            background.run(
                [&, link = background.link()] {
                    go.acquire();
                    link.toGui([&] { reported = true; });
                    returned = true;
                    return 1;
                },
                [&](int) { delivered = true; });
        }
        go.release();
        QTRY_VERIFY(returned);
        QTest::qWait(100);   // anything queued for the gone owner has had its turn
        QVERIFY(!delivered);
        QVERIFY(!reported);
    }

    void waitForAllWaitsForEveryWork()
    {
        ui::Background background;
        std::atomic<int> returned{0};
        for (int i = 0; i < 6; ++i)
            background.run(
                [&] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    ++returned;
                },
                [] {});
        background.waitForAll();
        QCOMPARE(returned.load(), 6);
        QCOMPARE(background.running(), 0);
    }

    void aNestedEventLoopInAResultStillGetsTheNextOnes()
    {
        // A result handler may open a modal dialog (an event loop of its
        // own): the results behind it must not wait for it to close.
        ui::Background background;
        bool second = false;
        bool secondArrivedInsideFirst = false;
        background.run([] { return 1; },
                       [&](int) {
                           QEventLoop loop;
                           QTimer::singleShot(20000, &loop, &QEventLoop::quit);   // a broken inbox fails, not hangs
                           QTimer poll;
                           connect(&poll, &QTimer::timeout, &loop, [&] {
                               if (second)
                                   loop.quit();
                           });
                           poll.start(5);
                           background.run([] { return 2; }, [&](int) { second = true; });
                           loop.exec();
                           secondArrivedInsideFirst = second;
                       });
        QTRY_VERIFY(second);
        QVERIFY(secondArrivedInsideFirst);
    }

    void aFloodOfReportsDoesNotHoldTheGuiThread()
    {
        // A worker posting faster than the GUI thread handles its calls: the
        // GUI thread still gets to its other events (here a timer) between
        // them instead of draining a queue that never empties.
        ui::Background background;
        std::atomic<bool> stop{false};
        std::atomic<bool> stoppedByDeadline{false};
        int handled = 0;
        bool timerFired = false;
        background.run(
            [&, link = background.link()] {
                const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
                while (!stop) {
                    if (std::chrono::steady_clock::now() > deadline) {
                        stoppedByDeadline = true;
                        return;
                    }
                    link.toGui([&] {
                        ++handled;
                        std::this_thread::sleep_for(std::chrono::microseconds(500));
                    });
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                }
            },
            [] {});
        QTimer::singleShot(50, this, [&] {
            timerFired = true;
            stop = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(timerFired, 120000);
        background.waitForAll();
        QVERIFY2(!stoppedByDeadline, "the timer waited until the worker stopped posting");
        QVERIFY(handled > 0);
    }

    void paintingGoesOnWhileEveryBackgroundThreadIsBusy()
    {
        // Occupy every thread of the background pool; painting a big widget
        // must not wait for them. A watchdog frees them after 10 s so a
        // regression fails instead of hanging.
        ui::Background background;
        const int n = ui::WorkerPool::instance().maxThreads();
        std::counting_semaphore<> started{0}, go{0};
        for (int i = 0; i < n; ++i)
            background.run(
                [&] {
                    started.release();
                    go.acquire();
                },
                [] {});
        for (int i = 0; i < n; ++i)
            started.acquire();
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
        background.waitForAll();
        QVERIFY(!shot.isNull());
        QVERIFY2(!watchdogFired, "painting waited for the background pool");
    }
};

CACHESCOPE_TEST_MAIN(TestBackground)
#include "tst_background.moc"
