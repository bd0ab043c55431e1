// Takes the user guide's screenshots (docs/screenshots/*.png) from the demo
// data: opens the main window at a fixed size, visits every view, waits for
// its background work, and grabs the window. Run by scripts/screenshots.sh
// under Xvfb (a real X11 platform, so fonts and style are the desktop's).
//   cachescope_screenshot_tour DEMO_DIR OUT_DIR
// DEMO_DIR is what `cachescope-cli demo DEMO_DIR` made (store/, *.zst).
#include "ui/bench/BenchmarkDocument.h"
#include "ui/bench/SamplePlot.h"
#include "ui/charts/ChartExportDialog.h"
#include "ui/frames/FrameLayoutDocument.h"
#include "ui/frames/FrameTableModel.h"
#include "ui/gc/GcRunView.h"
#include "ui/gc/ReachabilityView.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/RecentFiles.h"
#include "ui/store/EntryDetailsPane.h"
#include "ui/store/EntryTableModel.h"
#include "ui/store/EvictDialog.h"
#include "ui/store/StoreBrowser.h"
#include "ui/store/StoreDocument.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <cstdio>
#include <functional>

namespace {

QString outDir;
bool failed = false;

bool waitFor(const std::function<bool()>& done, const char* what, int ms = 60000)
{
    if (QTest::qWaitFor(done, ms))
        return true;
    std::fprintf(stderr, "screenshot tour: timed out waiting for %s\n", what);
    failed = true;
    return false;
}

void settle(int ms = 400)
{
    QTest::qWait(ms);   // queued replots and layouts
}

void shoot(QWidget* w, const char* name)
{
    settle();
    const QString path = QDir(outDir).filePath(QString::fromLatin1(name) + QStringLiteral(".png"));
    if (!w->grab().save(path, "PNG")) {
        std::fprintf(stderr, "screenshot tour: cannot write %s\n", qPrintable(path));
        failed = true;
        return;
    }
    std::printf("%s\n", qPrintable(path));
}

template <typename T>
T* viewOf(ui::StoreDocument* doc)
{
    for (int i = 0; i < doc->views()->count(); ++i)
        if (auto* v = qobject_cast<T*>(doc->views()->widget(i)))
            return v;
    return nullptr;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("cachescope"));
    QApplication::setOrganizationName(QStringLiteral("cachescope-screenshots"));
    QApplication::setApplicationVersion(QStringLiteral(CACHESCOPE_VERSION));
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s DEMO_DIR OUT_DIR\n", argv[0]);
        return 2;
    }
    const QDir demo(QString::fromLocal8Bit(argv[1]));
    outDir = QString::fromLocal8Bit(argv[2]);
    const QString store = demo.filePath(QStringLiteral("store"));
    const QString zst = demo.filePath(QStringLiteral("small-frames.zst"));
    QSettings().clear();

    ui::MainWindow w;
    w.resize(1400, 900);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return 1;

    // The first window, with the recent files a user of the demo would have.
    w.recentFiles()->add(demo.filePath(QStringLiteral("seekable.zst")));
    w.recentFiles()->add(zst);
    w.recentFiles()->add(store);
    shoot(&w, "welcome");

    // Store browser: a merged entry selected, its chunks (shared ones highlighted).
    if (!w.openPath(store))
        return 1;
    auto* doc = qobject_cast<ui::StoreDocument*>(w.currentDocument());
    waitFor([doc] { return !doc->model()->isCounting() && doc->isSummaryReady(); }, "the store's summary");
    for (int row = 0; row < doc->model()->rowCount(); ++row) {
        const auto e = doc->model()->entryAt(row);
        if (e && QString::fromStdString(e->key) == QStringLiteral("Linux-node-modules-8c04d7")) {
            doc->browser()->selectRow(row);
            break;
        }
    }
    waitFor([doc] { return doc->browser()->details()->entryId() != 0; }, "the entry's details");
    settle(1000);
    shoot(&w, "store-browser");

    // Evict with a preview: what a budget would remove, before anything goes.
    doc->evictWithPreview();
    if (auto* evict = doc->findChild<ui::EvictDialog*>()) {
        evict->selectedKeysBox()->setChecked(false);
        evict->maxSizeEdit()->setText(QStringLiteral("32MiB"));
        bool previewed = false;
        QObject::connect(evict, &ui::EvictDialog::previewFinished, [&previewed] { previewed = true; });
        evict->previewButton()->click();
        waitFor([&previewed] { return previewed; }, "the eviction preview");
        shoot(evict, "evict-preview");
        evict->reject();
    } else {
        std::fprintf(stderr, "screenshot tour: the eviction dialog did not open\n");
        failed = true;
    }

    // Reachability: the dry run's strip, with the evicted entries' dead ranges.
    auto* reach = viewOf<ui::ReachabilityView>(doc);
    bool refreshed = false;
    QObject::connect(reach, &ui::ReachabilityView::refreshed, [&refreshed] { refreshed = true; });
    doc->views()->setCurrentWidget(reach);
    waitFor([&refreshed] { return refreshed; }, "the GC dry run");
    shoot(&w, "reachability");

    // A GC run: steps, figures, history.
    auto* gc = viewOf<ui::GcRunView>(doc);
    doc->views()->setCurrentWidget(gc);
    bool ran = false;
    QObject::connect(gc, &ui::GcRunView::runFinished, [&ran] { ran = true; });
    gc->runGc();
    waitFor([&ran] { return ran; }, "the GC run");
    settle(1000);
    shoot(&w, "gc");

    // Frame layout of a file of small sized frames, one frame selected.
    if (!w.openPath(zst))
        return 1;
    auto* frames = qobject_cast<ui::FrameLayoutDocument*>(w.currentDocument());
    waitFor([frames] { return frames->frameLayout() != nullptr; }, "the frame scan");
    if (frames->model()->rowCount() > 12)
        frames->table()->selectRow(12);
    shoot(&w, "frame-layout");

    // Benchmarks: a small snapshot scenario, shot live while the zstd
    // phases run (the bands of ours before them), then its summary chart
    // when it ends, and that chart as exported for a pull request.
    auto* bench = new ui::BenchmarkDocument(demo.filePath(QStringLiteral("bench-history.db")));
    w.addDocument(bench, QStringLiteral("Benchmarks"), QString());
    bench->selectScenario(QStringLiteral("snapshot"));
    bench->setParam(QStringLiteral("populated"), QStringLiteral("96MiB"));
    bench->setParam(QStringLiteral("sparse"), QStringLiteral("384MiB"));
    bench->setParam(QStringLiteral("workers"), QStringLiteral("2"));
    bench->setParam(QStringLiteral("chunk"), QStringLiteral("2MiB"));
    bool benchDone = false;
    QObject::connect(bench, &ui::BenchmarkDocument::runFinished, [&benchDone] { benchDone = true; });
    bench->run();
    // The phases so far: prepare, ours x3, verify, frame layout, then zstd -3 -T1 running.
    waitFor([bench, &benchDone] { return benchDone || bench->plot()->phaseBandCount() >= 8; }, "the zstd phases", 300000);
    shoot(&w, "benchmarks-live");
    waitFor([&benchDone] { return benchDone; }, "the benchmark run", 300000);
    shoot(&w, "benchmarks");
    QString exportError;
    if (!bench->exportChart(QDir(outDir).filePath(QStringLiteral("benchmark-summary.png")), &exportError)) {
        std::fprintf(stderr, "screenshot tour: %s\n", qPrintable(exportError));
        failed = true;
    }

    // The chart export dialog for that chart, filled in for a slide.
    QDir::setCurrent(demo.absolutePath());
    ui::ChartExportDialog dialog(&w, QStringLiteral("snapshot-summary"), QSize(1600, 900));
    dialog.dpiBox()->setValue(192);
    dialog.titleEdit()->setText(QStringLiteral("Snapshot of 96 MiB: ours beside zstd"));
    dialog.show();
    if (!QTest::qWaitForWindowExposed(&dialog)) {
        std::fprintf(stderr, "screenshot_tour: the chart export dialog was never shown\n");
        failed = true;
    }
    shoot(&dialog, "chart-export");
    dialog.close();

    return failed ? 1 : 0;
}
