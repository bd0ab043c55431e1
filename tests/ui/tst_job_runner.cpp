// JobRunner: work runs off the GUI thread, progress arrives on it, cancel
// stops a job, a typed result reaches onResult before finished(), and the
// result of a replaced (stale) job is dropped.
#include "JobSpy.h"
#include "common/TestSupport.h"
#include "core/util/Error.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"
#include "ui/jobs/StatusText.h"

#include <QApplication>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QVBoxLayout>
#include <QSignalSpy>
#include <QThread>

#include <atomic>
#include <string>
#include <thread>

using namespace std::chrono_literals;

class TestJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<cs::JobStatus>(); }

    void progressArrivesOnGuiThread()
    {
        ui::JobRunner runner;
        std::atomic<bool> workOnGuiThread{true};
        int progressCalls = 0;
        bool allOnGui = true;
        double lastFraction = -1;
        bool monotonic = true;
        connect(&runner, &ui::JobRunner::progress, this, [&](const cs::JobStatus& s) {
            ++progressCalls;
            allOnGui = allOnGui && QThread::currentThread() == qApp->thread();
            monotonic = monotonic && s.fraction >= lastFraction;
            lastFraction = s.fraction;
        });
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        QThread* gui = QThread::currentThread();
        int result = 0;
        int finishedBeforeResult = -1;
        runner.start(QStringLiteral("count"), [&, gui](cs::Job& job) {
            workOnGuiThread = QThread::currentThread() == gui;
            for (int i = 1; i <= 200; ++i) {
                job.checkCancel();
                job.setStepProgress(uint64_t(i), 200);
                std::this_thread::sleep_for(1ms);
            }
            job.finish("counted 200");
            return 42;
        }, [&](int value) {
            result = value;
            finishedBeforeResult = int(finished.count());
        });
        QVERIFY(runner.isRunning());
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.count(), 1);
        QVERIFY(outcomeAt(finished, 0).ok());
        QCOMPARE(outcomeAt(finished, 0).message, QStringLiteral("counted 200"));
        QVERIFY(!workOnGuiThread);
        QVERIFY(progressCalls > 0);
        QVERIFY(allOnGui);
        QVERIFY(monotonic);
        QCOMPARE(result, 42);
        QCOMPARE(finishedBeforeResult, 0);   // onResult ran first
        QCOMPARE(runner.lastStatus().state, cs::JobState::Done);
        QVERIFY(!runner.isRunning());
    }

    void cancelStopsTheJob()
    {
        ui::JobRunner runner;
        std::atomic<int> iterations{0};
        QSignalSpy progress(&runner, &ui::JobRunner::progress);
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        bool gotResult = false;
        runner.start(QStringLiteral("forever"), [&](cs::Job& job) {
            // Runs until cancelled (bounded so a broken cancel fails the test instead of hanging it).
            for (int i = 0; i < 60000; ++i) {
                job.checkCancel();
                job.setStepProgress(double(i % 1000) / 1000.0);
                ++iterations;
                std::this_thread::sleep_for(1ms);
            }
            return std::string("not cancelled");
        }, [&](const std::string&) { gotResult = true; });
        QVERIFY(progress.wait(20000));
        runner.cancel();
        QVERIFY(finished.wait(20000));
        QVERIFY(outcomeAt(finished, 0).cancelled());
        QCOMPARE(runner.lastStatus().state, cs::JobState::Cancelled);
        QVERIFY(!gotResult);
        QVERIFY(iterations < 60000);
    }

    void failureCarriesTheError()
    {
        ui::JobRunner runner;
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        bool gotResult = false;
        runner.start(QStringLiteral("fail"), [](cs::Job&) -> int {
            throw cs::Error("x.zst at offset 5: bad magic");
        }, [&](int) { gotResult = true; });
        QVERIFY(finished.wait(20000));
        QVERIFY(outcomeAt(finished, 0).failed());
        QCOMPARE(outcomeAt(finished, 0).message, QStringLiteral("x.zst at offset 5: bad magic"));
        QVERIFY(!gotResult);
        QCOMPARE(runner.lastStatus().state, cs::JobState::Failed);
    }

    void staleResultIsDropped()
    {
        ui::JobRunner runner;
        QSemaphore releaseFirst;
        std::atomic<bool> firstReturned{false};
        QStringList results;
        QList<int> values;
        connect(&runner, &ui::JobRunner::finished, this, [&](const ui::JobOutcome& o) { results << o.message; });
        const int first = runner.start(QStringLiteral("first"), [&](cs::Job& job) {
            // Ignores cancel on purpose: it returns a result after the second job finished.
            releaseFirst.acquire();
            job.finish("first");
            firstReturned = true;
            return 1;
        }, [&](int v) { values << v; });
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        const int second = runner.start(QStringLiteral("second"), [](cs::Job& job) {
            job.finish("second");
            return 2;
        }, [&](int v) { values << v; });
        QVERIFY(second > first);
        QCOMPARE(runner.currentJobId(), second);
        QVERIFY(finished.wait(20000));
        QCOMPARE(results, QStringList{QStringLiteral("second")});
        releaseFirst.release();
        runner.waitForAll();
        QVERIFY(firstReturned);
        // Deliver whatever the first worker queued; it must not reach the signal.
        QTest::qWait(100);
        QCOMPARE(results, QStringList{QStringLiteral("second")});
        QCOMPARE(values, QList<int>{2});
    }

    void progressWidgetFollowsAndCancels()
    {
        ui::JobRunner runner;
        ui::JobProgressWidget widget;
        widget.attach(&runner);
        widget.show();
        QSignalSpy progress(&runner, &ui::JobRunner::progress);
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        runner.start(QStringLiteral("slow"), [](cs::Job& job) {
            for (int i = 0; i < 60000; ++i) {
                job.checkCancel();
                job.setStepProgress(0.25 + 0.5 * double(i) / 60000.0);
                std::this_thread::sleep_for(1ms);
            }
        });
        QVERIFY(widget.isVisible());
        QVERIFY(progress.wait(20000));
        QTRY_VERIFY(widget.bar()->value() >= 250);
        QVERIFY(widget.label()->text().contains(QStringLiteral("slow")));
        QTest::mouseClick(widget.cancelButton(), Qt::LeftButton);
        QVERIFY(finished.wait(20000));
        QVERIFY(outcomeAt(finished, 0).cancelled());
        QVERIFY(!widget.isVisible());
    }

    // A job's progress repaints its line, and never asks the view holding it
    // for a new layout: with a QLabel every tick re-laid out the view, each
    // word-wrapped label asked its height for its width (issue 26's stall).
    void progressTicksDoNotRelayOutTheView()
    {
        struct LayoutRequests : QObject {
            int count = 0;
            bool eventFilter(QObject*, QEvent* e) override
            {
                if (e->type() == QEvent::LayoutRequest)
                    ++count;
                return false;
            }
        } requests;
        QWidget view;
        auto* layout = new QVBoxLayout(&view);
        auto* header = new QLabel(QStringLiteral("<b>an entry</b> with a header long enough to wrap over lines"), &view);
        header->setWordWrap(true);
        layout->addWidget(header);
        ui::JobRunner runner;
        auto* widget = new ui::JobProgressWidget(&view);
        widget->attach(&runner);
        layout->addWidget(widget);
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy progress(&runner, &ui::JobRunner::progress);
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        std::atomic<bool> stop{false};
        runner.start(QStringLiteral("ticking"), [&stop](cs::Job& job) {
            for (int i = 0; i < 60000 && !stop; ++i) {
                job.setStepProgress(double(i) / 60000.0);
                std::this_thread::sleep_for(1ms);
            }
        });
        QVERIFY(progress.wait(20000));
        QTest::qWait(50);   // the start's own layout (the widget is shown)
        view.installEventFilter(&requests);
        const QString before = widget->label()->text();
        const int ticks = int(progress.count());
        QTRY_VERIFY(progress.count() >= ticks + 5 && widget->label()->text() != before);
        QTest::qWait(50);
        QCOMPARE(requests.count, 0);
        stop = true;
        QVERIFY(finished.wait(20000));
    }

    void destructorWaitsForTheWorker()
    {
        std::atomic<bool> returned{false};
        {
            ui::JobRunner runner;
            runner.start(QStringLiteral("busy"), [&](cs::Job& job) {
                struct Mark {
                    std::atomic<bool>& flag;
                    ~Mark() { flag = true; }
                } mark{returned};
                for (int i = 0; i < 60000; ++i) {
                    job.checkCancel();
                    std::this_thread::sleep_for(1ms);
                }
            });
            QTest::qWait(20);
        }
        // The destructor cancelled the job and waited for the worker to return.
        QVERIFY(returned);
    }
};

CACHESCOPE_TEST_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
