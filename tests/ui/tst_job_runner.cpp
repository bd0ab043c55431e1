// JobRunner: work runs off the GUI thread, progress arrives on it, cancel
// stops a job, and the result of a replaced (stale) job is dropped.
#include "common/TestSupport.h"
#include "core/util/Error.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QApplication>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QThread>

#include <atomic>
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
        runner.start(QStringLiteral("count"), [&, gui](cs::Job& job) {
            workOnGuiThread = QThread::currentThread() == gui;
            for (int i = 1; i <= 200; ++i) {
                job.checkCancel();
                job.setStepProgress(uint64_t(i), 200);
                std::this_thread::sleep_for(1ms);
            }
            job.finish("counted 200");
            return std::any(42);
        });
        QVERIFY(runner.isRunning());
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("counted 200"));
        QVERIFY(!workOnGuiThread);
        QVERIFY(progressCalls > 0);
        QVERIFY(allOnGui);
        QVERIFY(monotonic);
        QCOMPARE(std::any_cast<int>(runner.result()), 42);
        QCOMPARE(runner.lastStatus().state, cs::JobState::Done);
        QVERIFY(!runner.isRunning());
    }

    void cancelStopsTheJob()
    {
        ui::JobRunner runner;
        std::atomic<int> iterations{0};
        QSignalSpy progress(&runner, &ui::JobRunner::progress);
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        runner.start(QStringLiteral("forever"), [&](cs::Job& job) {
            // Runs until cancelled (bounded so a broken cancel fails the test instead of hanging it).
            for (int i = 0; i < 60000; ++i) {
                job.checkCancel();
                job.setStepProgress(double(i % 1000) / 1000.0);
                ++iterations;
                std::this_thread::sleep_for(1ms);
            }
            return std::any(QStringLiteral("not cancelled"));
        });
        QVERIFY(progress.wait(20000));
        runner.cancel();
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QCOMPARE(runner.lastStatus().state, cs::JobState::Cancelled);
        QVERIFY(!runner.result().has_value());
        QVERIFY(iterations < 60000);
    }

    void failureCarriesTheError()
    {
        ui::JobRunner runner;
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        runner.start(QStringLiteral("fail"), [](cs::Job&) -> std::any {
            throw cs::Error("x.zst at offset 5: bad magic");
        });
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("x.zst at offset 5: bad magic"));
        QCOMPARE(runner.lastStatus().state, cs::JobState::Failed);
    }

    void staleResultIsDropped()
    {
        ui::JobRunner runner;
        QSemaphore releaseFirst;
        std::atomic<bool> firstReturned{false};
        QStringList results;
        connect(&runner, &ui::JobRunner::finished, this, [&](bool, const QString& text) { results << text; });
        const int first = runner.start(QStringLiteral("first"), [&](cs::Job& job) {
            // Ignores cancel on purpose: it returns a result after the second job finished.
            releaseFirst.acquire();
            job.finish("first");
            firstReturned = true;
            return std::any(1);
        });
        QSignalSpy finished(&runner, &ui::JobRunner::finished);
        const int second = runner.start(QStringLiteral("second"), [](cs::Job& job) {
            job.finish("second");
            return std::any(2);
        });
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
        QCOMPARE(std::any_cast<int>(runner.result()), 2);
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
            return std::any();
        });
        QVERIFY(widget.isVisible());
        QVERIFY(progress.wait(20000));
        QTRY_VERIFY(widget.bar()->value() >= 250);
        QVERIFY(widget.label()->text().contains(QStringLiteral("slow")));
        QTest::mouseClick(widget.cancelButton(), Qt::LeftButton);
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(!widget.isVisible());
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
                return std::any();
            });
            QTest::qWait(20);
        }
        // The destructor cancelled the job and waited for the worker to return.
        QVERIFY(returned);
    }
};

CACHESCOPE_TEST_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
