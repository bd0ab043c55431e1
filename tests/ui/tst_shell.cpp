// The main window's habits, headless: the shell's keys are explicit (the
// same under every platform theme) and reach their targets when pressed
// (Ctrl+F the current view's filter, F5 a refresh, Ctrl+W, F1 the guide,
// Ctrl+Q); Open Recent is usable from a first run and lists only files that
// opened; a first window fits a small screen; chart export names files
// (extension added when missing), draws at the chosen size, resolution and
// title; About names the library versions the program runs with.
#include "JobSpy.h"
#include "common/TestSupport.h"
#include "core/jobs/Job.h"
#include "core/store/Store.h"
#include "ui/charts/ChartExport.h"
#include "ui/charts/ChartExportDialog.h"
#include "ui/frames/FrameLayoutDocument.h"
#include "ui/shell/GuideWindow.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/RecentFiles.h"
#include "ui/shell/Shortcuts.h"
#include "ui/store/EntryTableModel.h"
#include "ui/store/StoreBrowser.h"
#include "ui/store/StoreDocument.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextBrowser>
#include <QXmlStreamReader>
#include <qcustomplot.h>
#include <sqlite3.h>
#include <zstd.h>

class TestShell : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString store_;
    QString zst_;
    QString notZst_;

    static QAction* action(ui::MainWindow& w, const char* name)
    {
        return w.findChild<QAction*>(QString::fromLatin1(name));
    }

    static bool showAndActivate(ui::MainWindow& w)
    {
        w.show();
        QApplication::setActiveWindow(&w);
        return QTest::qWaitForWindowActive(&w);
    }

    ui::StoreDocument* openStore(ui::MainWindow& w)
    {
        if (!w.openPath(store_))
            return nullptr;
        auto* doc = qobject_cast<ui::StoreDocument*>(w.currentDocument());
        if (doc && !QTest::qWaitFor([doc] { return !doc->browser()->model()->isCounting(); }, 20000))
            return nullptr;
        return doc;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-shell"));
        QSettings().clear();
        store_ = dir_.filePath(QStringLiteral("store"));
        auto store = cs::store::Store::init(store_.toStdString());
        const QString in = dir_.filePath(QStringLiteral("in"));
        QVERIFY(testsupport::writeFile(in, testsupport::randomBytes(200000, 5)));
        cs::Job job;
        job.start();
        store->putFile("shell-entry", in.toStdString(), job);
        // A zstd file written by the stock tool, and a file that is not zstd.
        zst_ = dir_.filePath(QStringLiteral("stock.zst"));
        const auto z = testsupport::zstd({QStringLiteral("-q"), QStringLiteral("-f"), in, QStringLiteral("-o"), zst_});
        QVERIFY2(z.exitCode == 0, z.err.constData());
        notZst_ = dir_.filePath(QStringLiteral("notes.zst"));
        QVERIFY(testsupport::writeFile(notZst_, "this is not a zstd frame\n"));
    }

    void init() { QSettings().clear(); }

    void explicitKeysFirstThenTheThemes()
    {
        const QList<QKeySequence> keys = ui::shortcutsFor(QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence::Close);
        QCOMPARE(keys.first(), QKeySequence(Qt::CTRL | Qt::Key_W));
        QCOMPARE(keys.count(QKeySequence(Qt::CTRL | Qt::Key_W)), 1);
        for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Close))
            QVERIFY(keys.contains(k));
        QCOMPARE(ui::shortcutsFor(QKeySequence(Qt::Key_F5)), QList<QKeySequence>{QKeySequence(Qt::Key_F5)});

        ui::MainWindow w;
        const struct { const char* action; QKeySequence key; } expected[] = {
            {"actionOpenFile", QKeySequence(Qt::CTRL | Qt::Key_O)},
            {"actionOpenStore", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)},
            {"actionCloseTab", QKeySequence(Qt::CTRL | Qt::Key_W)},
            {"actionQuit", QKeySequence(Qt::CTRL | Qt::Key_Q)},
            {"actionFind", QKeySequence(Qt::CTRL | Qt::Key_F)},
            {"actionRefresh", QKeySequence(Qt::Key_F5)},
            {"actionGuide", QKeySequence(Qt::Key_F1)},
        };
        QSet<QKeySequence> seen;
        for (const auto& e : expected) {
            QAction* a = action(w, e.action);
            QVERIFY2(a, e.action);
            QCOMPARE(a->shortcut(), e.key);   // what the menu shows
            // No key of one action is also a key of another (ambiguous: neither fires).
            for (const QKeySequence& k : a->shortcuts()) {
                QVERIFY2(!seen.contains(k), qPrintable(k.toString()));
                seen.insert(k);
            }
        }
    }

    void keysReachTheirTargets()
    {
        ui::MainWindow w;
        ui::StoreDocument* doc = openStore(w);
        QVERIFY(doc);
        QVERIFY(showAndActivate(w));

        // Ctrl+F from another inner tab: back to Entries, focus in the filter.
        doc->views()->setCurrentIndex(doc->views()->count() - 1);
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        QCOMPARE(doc->views()->currentWidget(), static_cast<QWidget*>(doc->browser()));
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(doc->browser()->filterEdit()));

        // F5 refreshes the current document, wherever the focus is.
        QSignalSpy changed(doc, &ui::StoreDocument::storeChanged);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F5);
        QCOMPARE(changed.count(), 1);

        // F1 opens the guide from the resource, screenshots included.
        QTest::keyClick(&w, Qt::Key_F1);
        auto* guide = w.findChild<ui::GuideWindow*>();
        QVERIFY(guide);
        QTRY_VERIFY(guide->isVisible());
        QVERIFY(guide->browser()->toPlainText().contains(QStringLiteral("User Guide")));
        QVERIFY(QFile::exists(QStringLiteral(":/guide/guide.md")));
        const QVariant image = guide->browser()->document()->resource(QTextDocument::ImageResource,
                                                                       QUrl(QStringLiteral("screenshots/store-browser.png")));
        QVERIFY2(image.isValid(), "the guide's screenshots are not in the resource");
        guide->close();
        QVERIFY(showAndActivate(w));

        // Ctrl+W closes the tab, Ctrl+Q the window.
        QTest::keyClick(&w, Qt::Key_W, Qt::ControlModifier);
        QTRY_COMPARE(w.documentCount(), 0);
        QTest::keyClick(&w, Qt::Key_Q, Qt::ControlModifier);
        QTRY_VERIFY(!w.isVisible());
    }

    void recentFilesFromTheFirstRunOnlySuccessfulOpens()
    {
        ui::MainWindow w;
        auto* recentMenu = w.findChild<QMenu*>(QStringLiteral("recentMenu"));
        QVERIFY(recentMenu);
        // A first run: the menu is there and says it is empty.
        QVERIFY(recentMenu->isEnabled());
        QCOMPARE(recentMenu->actions().size(), 1);
        QVERIFY(!recentMenu->actions().first()->isEnabled());

        // A file that is not zstd opens a tab showing the error, and is not listed.
        auto* bad = w.openPath(notZst_) ? qobject_cast<ui::FrameLayoutDocument*>(w.currentDocument()) : nullptr;
        QVERIFY(bad);
        QSignalSpy scanned(bad, &ui::FrameLayoutDocument::scanFinished);
        QVERIFY(scanned.wait(20000));
        QCOMPARE(outcomeAt(scanned, 0).ok(), false);
        QVERIFY(!w.recentFiles()->paths().contains(QFileInfo(notZst_).absoluteFilePath()));
        // Nor is a path that does not exist, or a folder that is not a store.
        QVERIFY(!w.openPath(dir_.filePath(QStringLiteral("missing.zst"))));
        QVERIFY(!w.openPath(dir_.path()));
        QVERIFY(w.recentFiles()->paths().isEmpty());

        // A zstd file is listed once its scan succeeded, at once in the menu.
        QVERIFY(w.openPath(zst_));
        QTRY_VERIFY(w.recentFiles()->paths().contains(QFileInfo(zst_).absoluteFilePath()));
        QVERIFY(openStore(w));
        QCOMPARE(w.recentFiles()->paths().first(), QFileInfo(store_).absoluteFilePath());
        QStringList labels;
        for (QAction* a : recentMenu->actions())
            if (a->isEnabled() && !a->isSeparator())
                labels << a->text();
        QCOMPARE(labels.size(), 3);   // the store, the file, Clear Recent
        QVERIFY(labels[0].endsWith(QDir::toNativeSeparators(QFileInfo(store_).absoluteFilePath())));
        QVERIFY(labels[1].endsWith(QDir::toNativeSeparators(QFileInfo(zst_).absoluteFilePath())));

        // Triggering an entry opens it (here: selects its open tab).
        w.tabs()->setCurrentIndex(0);
        recentMenu->actions().first()->trigger();
        QCOMPARE(w.currentDocument()->property("documentPath").toString(), QFileInfo(store_).canonicalFilePath());
    }

    void firstWindowFitsTheScreen()
    {
        // At QT_SCALE_FACTOR=2 a 1600x1000 screen offers 800x500 (less the panels).
        const QSize small = ui::MainWindow::firstWindowSize(QSize(800, 470));
        QVERIFY(small.width() <= 800 && small.height() <= 470);
        QCOMPARE(ui::MainWindow::firstWindowSize(QSize(2560, 1400)), QSize(1280, 820));
        ui::MainWindow w;
        const QRect available = w.screen()->availableGeometry();
        QVERIFY(w.width() <= available.width() && w.height() <= available.height());
    }

    void exportNames()
    {
        const QString png = QStringLiteral("PNG image (*.png)");
        QCOMPARE(ui::withExtension(QStringLiteral("/tmp/chart"), png), QStringLiteral("/tmp/chart.png"));
        QCOMPARE(ui::withExtension(QStringLiteral("/tmp/chart.svg"), png), QStringLiteral("/tmp/chart.svg"));
        QCOMPARE(ui::withExtension(QStringLiteral("/tmp/v1.2/chart"), QStringLiteral("SVG drawing (*.svg)")),
                 QStringLiteral("/tmp/v1.2/chart.svg"));
        QCOMPARE(ui::withExtension(QStringLiteral("samples"), ui::csvExportFilter()), QStringLiteral("samples.csv"));
        QCOMPARE(ui::withExtension(QString(), png), QString());

        ui::ChartExportDialog dialog(nullptr, QStringLiteral("chart"), QSize(640, 400));
        QCOMPARE(QFileInfo(dialog.path()).fileName(), QStringLiteral("chart.png"));
        QCOMPARE(dialog.widthBox()->value(), 640);
        dialog.formatBox()->setCurrentIndex(2);   // SVG: the name follows
        QCOMPARE(QFileInfo(dialog.path()).fileName(), QStringLiteral("chart.svg"));
        dialog.pathEdit()->setText(dir_.filePath(QStringLiteral("report")));   // no extension: the format's
        QCOMPARE(dialog.path(), dir_.filePath(QStringLiteral("report.svg")));
        dialog.pathEdit()->setText(dir_.filePath(QStringLiteral("report.pdf")));   // typed: the format follows
        QCOMPARE(dialog.formatBox()->currentIndex(), 1);
    }

    void exportAtSizeResolutionAndTitle()
    {
        QCustomPlot plot;
        plot.resize(500, 300);
        plot.addGraph()->setData({0, 1, 2, 3}, {1, 3, 2, 4});
        plot.rescaleAxes();
        plot.replot();

        ui::ExportOptions o;
        o.size = QSize(1200, 800);
        o.dpi = 192;
        QString error;
        const QString plain = dir_.filePath(QStringLiteral("plain.png"));
        QVERIFY2(ui::exportPlot(&plot, plain, o, &error), qPrintable(error));
        o.title = QStringLiteral("Restore throughput");
        const QString titled = dir_.filePath(QStringLiteral("titled.png"));
        QVERIFY2(ui::exportPlot(&plot, titled, o, &error), qPrintable(error));

        const QImage a(plain), b(titled);
        QCOMPARE(a.size(), QSize(1200, 800));
        QCOMPARE(b.size(), QSize(1200, 800));
        QCOMPARE(qRound(b.dotsPerMeterX() * 0.0254), 192);
        // The title is drawn in the band the plain chart leaves to its margin.
        auto inkInTopBand = [](const QImage& img) {
            const QRgb background = img.pixel(2, 2);
            int ink = 0;
            for (int y = 0; y < 40; ++y)
                for (int x = img.width() / 4; x < img.width() * 3 / 4; ++x)
                    ink += img.pixel(x, y) != background ? 1 : 0;
            return ink;
        };
        QVERIFY2(inkInTopBand(b) > inkInTopBand(a) + 1000, qPrintable(QStringLiteral("%1 vs %2").arg(inkInTopBand(b)).arg(inkInTopBand(a))));

        // SVG: the same picture in 96-dpi units (1200x800 at 192 dpi = 600x400).
        const QString svg = dir_.filePath(QStringLiteral("titled.svg"));
        QVERIFY2(ui::exportPlot(&plot, svg, o, &error), qPrintable(error));
        QXmlStreamReader xml(testsupport::readFile(svg));
        QVERIFY(xml.readNextStartElement());
        QCOMPARE(xml.name().toString(), QStringLiteral("svg"));
        QCOMPARE(xml.attributes().value(QStringLiteral("viewBox")).toString(), QStringLiteral("0 0 600 400"));
        QVERIFY(testsupport::readFile(svg).contains("Restore throughput"));

        // Refused: no extension we write, an absurd resolution.
        QVERIFY(!ui::exportPlot(&plot, dir_.filePath(QStringLiteral("chart.bmp")), o, &error));
        QVERIFY(error.contains(QStringLiteral("chart.bmp")));
        o.dpi = 5000;
        QVERIFY(!ui::exportPlot(&plot, dir_.filePath(QStringLiteral("big.png")), o, &error));
        QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("big.png"))));
    }

    void aboutNamesTheLibraryVersions()
    {
        const QString text = ui::MainWindow::aboutText();
        QVERIFY(text.contains(QString::fromLatin1(qVersion())));
        QVERIFY(text.contains(QString::fromLatin1(ZSTD_versionString())));
        QVERIFY(text.contains(QString::fromLatin1(sqlite3_libversion())));
        QVERIFY(text.contains(QStringLiteral(QCUSTOMPLOT_VERSION_STR)));
        QVERIFY(text.contains(QStringLiteral(CACHESCOPE_VERSION)));
    }
};

QTEST_MAIN(TestShell)
#include "tst_shell.moc"
