// What the GUI holds for many frames and many files (issue 22), measured as a
// child's own peak RSS (common/ChildRss.h):
//  - a frame document of 10 M frames held every FrameInfo (2.14 GB); it now
//    keeps 32-byte packed records, pages the table from them and draws the
//    band from bins: at most 400 MB for 10 M frames. The child is this test
//    in a mode that opens FILE in a MainWindow and waits for its scan.
//  - 3,000 files named on the command line were all read at start (1.72 GB);
//    each is now read when its tab is first shown. The child is the GUI.
#include "FrameFixtures.h"
#include "common/ChildRss.h"
#include "common/HostileFrames.h"

#include "ui/frames/FrameLayoutDocument.h"
#include "ui/frames/FrameTableModel.h"
#include "ui/frames/ScanQueue.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/PendingDocument.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTabWidget>

#include <cstdio>
#include <cstring>

using namespace testsupport;

namespace {

// Child mode: opens path, waits for the scan, paints the window, prints the
// table's frame count and the rows of its page.
int openAndReport(const char* path)
{
    ui::MainWindow window;
    window.show();
    if (!window.openPath(QString::fromLocal8Bit(path)))
        return 3;
    auto* doc = qobject_cast<ui::FrameLayoutDocument*>(window.currentDocument());
    if (!doc)
        return 4;
    QSignalSpy spy(doc, &ui::FrameLayoutDocument::scanFinished);
    if (!spy.wait(600000) || !spy.first().first().value<ui::JobOutcome>().ok())
        return 5;
    // The view shown: the band, the table's first page and the histogram painted.
    QApplication::processEvents();
    (void)window.grab();
    std::printf("%zu %d\n", doc->model()->frameCount(), doc->model()->rowCount());
    return 0;
}

} // namespace

class TestFrameMemory : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

    QString hostile(qint64 n) const { return hostileFramesFile(dir_.path(), n); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_frame_memory"));
    }

    void documentOfMillionsOfFrames_data()
    {
        QTest::addColumn<qint64>("frames");
        QTest::addColumn<long>("boundKiB");
        // 32 B a frame and the window around them.
        QTest::newRow("1M") << qint64(1000000) << long(160 * 1024);
        QTest::newRow("10M") << qint64(10000000) << long(400 * 1000 * 1000 / 1024);
    }

    void documentOfMillionsOfFrames()
    {
        QFETCH(qint64, frames);
        QFETCH(long, boundKiB);
        const QString file = hostile(frames);
        QVERIFY(!file.isEmpty());
        const QString out = path(QStringLiteral("rows.txt"));
        const auto r = runMeasured(QCoreApplication::applicationFilePath(), {QStringLiteral("--open"), file}, out);
        qInfo("frame document, %lld frames: peak RSS %ld KiB", frames, r.maxRssKiB);
        QCOMPARE(r.exitCode, 0);
        // The bound first: the old document (every FrameInfo, every row) took 2,140,976 KiB at 10 M.
        QVERIFY2(r.maxRssKiB <= boundKiB, qPrintable(QStringLiteral("%1 KiB").arg(r.maxRssKiB)));
        // Every frame is in the table, a page of it shown.
        const QList<QByteArray> counts = readFile(out).trimmed().split(' ');
        QCOMPARE(counts.size(), 2);
        QCOMPARE(counts[0].toLongLong(), frames + 1);
        QCOMPARE(counts[1].toLongLong(), qint64(ui::FrameTableModel::kDefaultPageRows));
    }

    // The GUI started with 3,000 files reads the first only (the others when
    // their tabs are shown); it quits after --profile-idle seconds.
    void commandLineFilesOpenLazily()
    {
        const QByteArray frame = zstd({QStringLiteral("-q"), QStringLiteral("-c")}, textBytes(20000, 2)).out;
        QVERIFY(!frame.isEmpty());
        QStringList args{QStringLiteral("--profile-boot"), path(QStringLiteral("boot.json")), QStringLiteral("--profile-idle"),
                         QStringLiteral("4")};
        for (int i = 0; i < 3000; ++i) {
            const QString f = path(QStringLiteral("many-%1.zst").arg(i));
            QVERIFY(writeFile(f, frame));
            args << f;
        }
        qputenv("QT_QPA_PLATFORM", "offscreen");
        // The GUI's settings and recent files go to a folder of the test's.
        qputenv("XDG_CONFIG_HOME", path(QStringLiteral("config")).toLocal8Bit());
        const auto r = runMeasured(QStringLiteral(CACHESCOPE_GUI), args, path(QStringLiteral("gui.log")));
        qInfo("GUI with 3,000 files named: peak RSS %ld KiB", r.maxRssKiB);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.maxRssKiB <= 300 * 1024, qPrintable(QStringLiteral("%1 KiB").arg(r.maxRssKiB)));
    }

    // In process: every path gets its tab, one document is read, a tab shown
    // reads its own, and no more than ScanQueue::kMaxScansAtOnce scan at once.
    void pendingTabsOpenWhenShown()
    {
        QStringList paths;
        const QString one = fixtures::writeSizedFrames(dir_.path(), 2);
        for (int i = 0; i < 40; ++i) {
            const QString f = path(QStringLiteral("lazy-%1.zst").arg(i));
            QFile::copy(one, f);
            paths << f;
        }
        paths << path(QStringLiteral("no-such-file.zst"));
        ui::MainWindow window;
        window.show();
        window.openPathsLazily(paths);
        QCOMPARE(window.documentCount(), 40);
        QCOMPARE(window.tabs()->tabText(7), QStringLiteral("lazy-7.zst"));
        QVERIFY(window.lastError().contains(QStringLiteral("no-such-file.zst")));
        QTRY_VERIFY(qobject_cast<ui::FrameLayoutDocument*>(window.tabs()->widget(0)));
        QCOMPARE(window.findChildren<ui::FrameLayoutDocument*>().size(), 1);
        QCOMPARE(window.findChildren<ui::PendingDocument*>().size(), 39);

        window.tabs()->setCurrentIndex(7);
        QTRY_VERIFY(qobject_cast<ui::FrameLayoutDocument*>(window.tabs()->widget(7)));
        QCOMPARE(window.documentCount(), 40);
        QCOMPARE(window.tabs()->currentIndex(), 7);
        QCOMPARE(window.tabs()->tabText(7), QStringLiteral("lazy-7.zst"));
        QCOMPARE(window.findChildren<ui::FrameLayoutDocument*>().size(), 2);
        auto* doc = qobject_cast<ui::FrameLayoutDocument*>(window.tabs()->widget(7));
        QTRY_VERIFY(doc->frameLayout());
        QCOMPARE(doc->model()->rowCount(), 2);
        // Naming a path again selects its tab, read or not.
        QVERIFY(window.openPath(paths[20]));
        QTRY_VERIFY(qobject_cast<ui::FrameLayoutDocument*>(window.tabs()->widget(20)));
        QCOMPARE(window.documentCount(), 40);

        // Shown one after another without waiting: at most two scans run.
        int most = 0;
        for (int i = 21; i < 30; ++i) {
            window.tabs()->setCurrentIndex(i);
            QCoreApplication::processEvents();
            most = std::max(most, ui::ScanQueue::instance().running());
            QVERIFY(ui::ScanQueue::instance().running() <= ui::ScanQueue::kMaxScansAtOnce);
        }
        QTRY_COMPARE(ui::ScanQueue::instance().running() + ui::ScanQueue::instance().waiting(), 0);
        for (int i = 21; i < 30; ++i) {
            auto* d = qobject_cast<ui::FrameLayoutDocument*>(window.tabs()->widget(i));
            QVERIFY(d);
            QTRY_VERIFY(d->frameLayout());
        }
        QVERIFY(most >= 1);
    }
};

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc == 3 && std::strcmp(argv[1], "--open") == 0) {
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_frame_memory"));
        return openAndReport(argv[2]);
    }
    TestFrameMemory tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_frame_memory.moc"
