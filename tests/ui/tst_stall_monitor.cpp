// StallMonitor: a busy GUI thread shows up as a stall of about its length.
#include "common/TestSupport.h"
#include "ui/shell/StallMonitor.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>

class TestStallMonitor : public QObject {
    Q_OBJECT
    static void busyFor(int ms)
    {
        QElapsedTimer t;
        t.start();
        volatile uint64_t sink = 0;
        while (t.elapsed() < ms)
            sink = sink + 1;
    }

private Q_SLOTS:
    void detectsABusyLoop()
    {
        ui::StallMonitor monitor;
        QSignalSpy changed(&monitor, &ui::StallMonitor::stallsChanged);
        monitor.start();
        QVERIFY(monitor.isRunning());
        QTest::qWait(100);
        busyFor(120);
        QTest::qWait(100);
        QVERIFY2(monitor.longestStallMs() >= 100, qPrintable(QString::number(monitor.longestStallMs())));
        QVERIFY(monitor.lastMinuteStallMs() >= 100);
        QVERIFY(monitor.lastMinuteStallMs() <= monitor.longestStallMs());
        QVERIFY(!changed.isEmpty());
        QCOMPARE(changed.last().at(0).toInt(), monitor.longestStallMs());
        QCOMPARE(monitor.property("longestStallMs").toInt(), monitor.longestStallMs());
        QVERIFY(monitor.text().startsWith(QStringLiteral("UI stall: max ")));
        QVERIFY(monitor.text().contains(QStringLiteral("last min")));
    }

    void longerStallWinsAndResetClears()
    {
        ui::StallMonitor monitor;
        monitor.start();
        QTest::qWait(50);
        busyFor(120);
        QTest::qWait(50);
        const int first = monitor.longestStallMs();
        busyFor(250);
        QTest::qWait(50);
        QVERIFY(monitor.longestStallMs() >= 240);
        QVERIFY(monitor.longestStallMs() > first);
        monitor.reset();
        QVERIFY(monitor.longestStallMs() < 240);
        QVERIFY(monitor.lastMinuteStallMs() < 240);
    }

    void stoppedMonitorRecordsNothing()
    {
        ui::StallMonitor monitor;
        QCOMPARE(monitor.longestStallMs(), 0);
        QCOMPARE(monitor.lastMinuteStallMs(), 0);
        busyFor(50);
        QTest::qWait(30);
        QCOMPARE(monitor.longestStallMs(), 0);
    }
};

CACHESCOPE_TEST_MAIN(TestStallMonitor)
#include "tst_stall_monitor.moc"
