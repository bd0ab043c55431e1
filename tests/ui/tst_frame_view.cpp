// The frame-layout view in a real MainWindow, headless: open fixtures written
// by stock zstd, wait for the scan, compare the table with `zstd -lv`, check
// the verdict, click the band, and export band, histogram and table.
#include "JobSpy.h"
#include "FrameFixtures.h"
#include "core/jobs/Job.h"
#include "core/snapshot/Snapshot.h"
#include "ui/frames/FrameBandWidget.h"
#include "ui/frames/FrameHistogram.h"
#include "ui/frames/FramePageBar.h"
#include "ui/frames/FrameLayoutDocument.h"
#include "ui/frames/FrameSummaryPanel.h"
#include "ui/frames/FrameTableModel.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/RecentFiles.h"

#include <QApplication>
#include <QMimeData>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QXmlStreamReader>

using ui::FrameLayoutDocument;

class TestFrameView : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    // Opens path in window and waits for its scan; null on failure.
    static FrameLayoutDocument* openAndScan(ui::MainWindow& window, const QString& path)
    {
        if (!window.openPath(path))
            return nullptr;
        auto* doc = qobject_cast<FrameLayoutDocument*>(window.currentDocument());
        if (!doc)
            return nullptr;
        QSignalSpy spy(doc, &FrameLayoutDocument::scanFinished);
        if (doc->isScanning() && !spy.wait(60000))
            return nullptr;
        return doc;
    }

    static int svgElements(const QString& path, const QString& name)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return -1;
        QXmlStreamReader xml(&f);
        int n = 0;
        bool sawSvg = false;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                sawSvg = sawSvg || xml.name() == QLatin1String("svg");
                n += xml.name() == name;
            }
        }
        return xml.hasError() || !sawSvg ? -1 : n;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_frame_view"));
        ui::RecentFiles().clear();
    }

    void sizedFramesAreSplittable()
    {
        const QString path = fixtures::writeSizedFrames(dir_.path(), 3);
        const fixtures::ZstdCounts truth = fixtures::zstdList(path);
        QCOMPARE(truth.zstdFrames, 3);

        ui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        FrameLayoutDocument* doc = openAndScan(window, path);
        QVERIFY(doc);
        QVERIFY(doc->frameLayout());
        QCOMPARE(doc->table()->model()->rowCount(), truth.zstdFrames + truth.skippableFrames);
        const QString verdict = doc->summary()->verdictText();
        QVERIFY2(verdict.startsWith(QStringLiteral("Splittable: yes · 3 independent pieces")), qPrintable(verdict));
        QCOMPARE(window.documentCount(), 1);
        QCOMPARE(window.tabs()->tabText(0), QStringLiteral("sized.zst"));
        QVERIFY(window.recentFiles()->paths().contains(QFileInfo(path).absoluteFilePath()));

        // Opening the same file again selects its tab.
        QVERIFY(window.openPath(path));
        QCOMPARE(window.documentCount(), 1);

        // A click on the band selects that frame's row in the table.
        ui::FrameBandWidget* band = doc->band();
        QTRY_VERIFY(band->width() > 100);
        int clickX = -1;
        for (int x = 0; x < band->width() && clickX < 0; ++x)
            if (band->frameAtX(x) == 2)
                clickX = x + 2;
        QVERIFY(clickX > 0);
        QTest::mouseClick(band, Qt::LeftButton, {}, QPoint(clickX, 20));
        QCOMPARE(band->selectedFrame(), 2);
        QCOMPARE(doc->table()->currentIndex().row(), doc->model()->rowOfFrame(2));

        // A table of pages: a click on a frame of another page shows its page.
        doc->model()->setPageRows(2);
        QVERIFY(doc->pageBar()->isVisible());
        QCOMPARE(doc->model()->page(), size_t(0));
        QTest::mouseClick(band, Qt::LeftButton, {}, QPoint(clickX, 20));
        QCOMPARE(doc->model()->page(), size_t(1));
        QCOMPARE(doc->table()->currentIndex().row(), 0);
        QCOMPARE(doc->model()->frameIndexAt(0), size_t(2));
        QVERIFY2(doc->pageBar()->text().startsWith(QStringLiteral("Frames 3–")), qPrintable(doc->pageBar()->text()));
        doc->model()->setPageRows(ui::FrameTableModel::kDefaultPageRows);
        QVERIFY(!doc->pageBar()->isVisible());

        window.closeCurrentTab();
        QCOMPARE(window.documentCount(), 0);
    }

    void streamedFrameIsNotSplittable()
    {
        const QString path = fixtures::writeStreamFrame(dir_.path());
        const fixtures::ZstdCounts truth = fixtures::zstdList(path);
        ui::MainWindow window;
        FrameLayoutDocument* doc = openAndScan(window, path);
        QVERIFY(doc);
        QCOMPARE(doc->model()->rowCount(), truth.zstdFrames + truth.skippableFrames);
        QVERIFY2(doc->summary()->verdictText().startsWith(QStringLiteral("Splittable: no")),
                 qPrintable(doc->summary()->verdictText()));
    }

    void mixedFileAndExports()
    {
        const QString path = fixtures::writeMixedFrames(dir_.path());
        const fixtures::ZstdCounts truth = fixtures::zstdList(path);
        ui::MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        FrameLayoutDocument* doc = openAndScan(window, path);
        QVERIFY(doc);
        QCOMPARE(doc->model()->rowCount(), truth.zstdFrames + truth.skippableFrames);
        QCOMPARE(qint64(doc->frameLayout()->summary.compressedSize), truth.compressedSize);
        QVERIFY(doc->histogram()->plottableCount() >= 3);  // sized, unsized and skippable bars
        QCOMPARE(doc->exportActions().size(), 3);

        const QString out = dir_.path();
        QString error;
        for (const QString& what : {QStringLiteral("band"), QStringLiteral("histogram")}) {
            for (const QString& ext : {QStringLiteral("png"), QStringLiteral("pdf"), QStringLiteral("svg")}) {
                const QString file = out + QStringLiteral("/%1.%2").arg(what, ext);
                const bool ok = what == QLatin1String("band") ? doc->exportBand(file, &error) : doc->exportHistogram(file, &error);
                QVERIFY2(ok, qPrintable(error));
                const QByteArray bytes = testsupport::readFile(file);
                QVERIFY2(bytes.size() > 100, qPrintable(file));
                if (ext == QLatin1String("png"))
                    QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
                if (ext == QLatin1String("pdf")) {
                    QVERIFY(bytes.startsWith("%PDF-"));
                    QVERIFY(bytes.trimmed().endsWith("%%EOF"));
                }
                if (ext == QLatin1String("svg"))
                    QVERIFY2(svgElements(file, QStringLiteral("path")) > 0 || svgElements(file, QStringLiteral("rect")) > 0,
                             qPrintable(file));
            }
        }
        const QImage band(out + QStringLiteral("/band.png"));
        QCOMPARE(band.height(), doc->band()->sizeHint().height());
        QVERIFY(!doc->exportBand(out + QStringLiteral("/band.bmp"), &error));
        QVERIFY(error.contains(QStringLiteral("band.bmp")));
        QVERIFY(!doc->exportHistogram(QStringLiteral("/nonexistent-dir/h.png"), &error));

        // The histogram follows a dark palette (PlotTheme on QEvent::PaletteChange).
        QPalette dark = doc->histogram()->palette();
        dark.setColor(QPalette::Window, QColor(0x202020));
        dark.setColor(QPalette::Base, QColor(0x101010));
        dark.setColor(QPalette::Text, QColor(0xf0f0f0));
        doc->histogram()->setPalette(dark);
        QTRY_COMPARE(doc->histogram()->xAxis->tickLabelColor(), QColor(0xf0f0f0));
        QCOMPARE(doc->histogram()->axisRect()->backgroundBrush().color(), QColor(0x101010));

        const QString csv = out + QStringLiteral("/frames.csv");
        QVERIFY2(doc->exportTable(csv, &error), qPrintable(error));
        QCOMPARE(testsupport::readFile(csv).trimmed().split('\n').size(), truth.zstdFrames + truth.skippableFrames + 1);
    }

    void badInputsAreReported()
    {
        ui::MainWindow window;
        QVERIFY(!window.openPath(dir_.path()));  // a folder without catalog.db
        QVERIFY2(window.lastError().contains(QStringLiteral("not a cachescope store")), qPrintable(window.lastError()));
        QVERIFY(!window.openPath(dir_.filePath(QStringLiteral("missing.zst"))));
        QVERIFY(window.lastError().contains(QStringLiteral("does not exist")));
        QCOMPARE(window.documentCount(), 0);

        // Not zstd at all: the document opens and shows the core's error sentence.
        const QString junk = dir_.filePath(QStringLiteral("junk.zst"));
        testsupport::writeFile(junk, QByteArray("this is not a zstd frame at all"));
        QVERIFY(window.openPath(junk));
        auto* doc = qobject_cast<FrameLayoutDocument*>(window.currentDocument());
        QVERIFY(doc);
        QSignalSpy spy(doc, &FrameLayoutDocument::scanFinished);
        QVERIFY(spy.wait(60000));
        QCOMPARE(outcomeAt(spy, 0).ok(), false);
        QVERIFY2(doc->summary()->verdictText().contains(QStringLiteral("junk.zst")), qPrintable(doc->summary()->verdictText()));
        QCOMPARE(doc->model()->rowCount(), 0);
    }

    void countBlocksRescans()
    {
        const QString path = fixtures::writeMixedFrames(dir_.path());
        ui::MainWindow window;
        FrameLayoutDocument* doc = openAndScan(window, path);
        QVERIFY(doc);
        QSignalSpy spy(doc, &FrameLayoutDocument::scanFinished);
        doc->rescan(true);
        QVERIFY(spy.wait(60000));
        QCOMPARE(outcomeAt(spy, 0).ok(), true);
        int framesWithBlocks = 0;
        for (int r = 0; r < doc->model()->rowCount(); ++r) {
            const cs::FrameInfo& f = doc->model()->frameAt(r);
            const QString text = doc->model()->data(doc->model()->index(r, ui::FrameTableModel::Blocks)).toString();
            if (f.kind == cs::FrameKind::Zstd) {
                QVERIFY(f.blocks[0] + f.blocks[1] + f.blocks[2] >= 1);
                QCOMPARE(text, QStringLiteral("%1/%2/%3").arg(f.blocks[2]).arg(f.blocks[0]).arg(f.blocks[1]));
                QVERIFY(f.blockList.empty());  // counts kept, the list dropped
                ++framesWithBlocks;
            } else {
                QVERIFY(text.isEmpty());
            }
        }
        QCOMPARE(framesWithBlocks, fixtures::zstdList(path).zstdFrames);
        // The 100,000-byte random frame cannot compress: zstd stores it in raw blocks.
        QVERIFY(doc->model()->frameAt(1).blocks[0] >= 1);
    }

    void recentFilesKeepTenExisting()
    {
        ui::RecentFiles recent;
        recent.clear();
        QStringList made;
        for (int i = 0; i < 12; ++i) {
            const QString p = dir_.filePath(QStringLiteral("recent-%1.zst").arg(i));
            testsupport::writeFile(p, QByteArray("x"));
            recent.add(p);
            made << QFileInfo(p).absoluteFilePath();
        }
        QStringList paths = recent.paths();
        QCOMPARE(paths.size(), ui::RecentFiles::kMaxEntries);
        QCOMPARE(paths.first(), made.last());  // most recent first
        QVERIFY(!paths.contains(made.first()));
        recent.add(made[5]);  // re-adding moves it to the front without a duplicate
        QCOMPARE(recent.paths().first(), made[5]);
        QCOMPARE(recent.paths().count(made[5]), 1);
        QFile::remove(made[11]);
        QVERIFY(!recent.paths().contains(made[11]));
        QCOMPARE(recent.paths().size(), ui::RecentFiles::kMaxEntries - 1);
        recent.clear();
        QVERIFY(recent.paths().isEmpty());
    }

    void droppedFileOpens()
    {
        const QString path = fixtures::writeSizedFrames(dir_.path(), 2);
        ui::MainWindow window;
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QCOMPARE(window.documentCount(), 1);
        auto* doc = qobject_cast<FrameLayoutDocument*>(window.currentDocument());
        QVERIFY(doc);
        QCOMPARE(doc->path(), QFileInfo(path).canonicalFilePath());
        QSignalSpy spy(doc, &FrameLayoutDocument::scanFinished);
        QVERIFY(spy.wait(60000));
        QCOMPARE(doc->model()->rowCount(), fixtures::zstdList(path).zstdFrames);
    }

    // A seek table whose checksum of entry 1 contradicts frame 1's: the
    // verdict says the table does not match, naming that entry; the table as
    // written does not get the sentence.
    void seekTableContradictionInTheVerdict()
    {
        const QString src = dir_.filePath(QStringLiteral("table.bin"));
        QVERIFY(testsupport::writeFile(src, testsupport::textBytes(3 * 65536, 6)));
        const QString snap = dir_.filePath(QStringLiteral("table.snap"));
        cs::Job job("write");
        cs::SnapshotWriteOptions options;
        options.chunk = 65536;
        options.seekTable = true;
        cs::writeSnapshot(src.toStdString(), snap.toStdString(), options, job);
        QByteArray b = testsupport::readFile(snap);
        const QString bad = dir_.filePath(QStringLiteral("table-bad.snap"));
        const qsizetype checksum1 = b.size() - 9 - 3 * 12 + 12 + 8;
        b[checksum1] = char(b[checksum1] ^ 0x40);
        QVERIFY(testsupport::writeFile(bad, b));

        ui::MainWindow window;
        FrameLayoutDocument* good = openAndScan(window, snap);
        QVERIFY(good && good->frameLayout());
        QVERIFY2(!good->summary()->verdictText().contains(QStringLiteral("seek table")),
                 qPrintable(good->summary()->verdictText()));
        FrameLayoutDocument* doc = openAndScan(window, bad);
        QVERIFY(doc && doc->frameLayout());
        const QString verdict = doc->summary()->verdictText();
        QVERIFY2(verdict.contains(QStringLiteral("The seek table does not match the frames: seek table entry 1 gives checksum 0x")),
                 qPrintable(verdict));
    }

    void addDocumentMakesATab()
    {
        ui::MainWindow window;
        auto* view = new QWidget;
        window.addDocument(view, QStringLiteral("Benchmarks"), QString());
        QCOMPARE(window.documentCount(), 1);
        QCOMPARE(window.currentDocument(), view);
        QCOMPARE(window.tabs()->tabText(0), QStringLiteral("Benchmarks"));
        window.closeTab(0);
        QCOMPARE(window.documentCount(), 0);
    }
};

CACHESCOPE_TEST_MAIN(TestFrameView)
#include "tst_frame_view.moc"
