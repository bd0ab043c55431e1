// The reachability and GC run views on a real store made at test time:
// strip totals against the core's dry run, hover lookups, the mapping model,
// sizes projected by the dry run against a real GC, a GC run from the view
// with its stats, history and comparison, run off the GUI thread.
#include "common/LoadAverage.h"
#include "common/TestSupport.h"

#include "core/gc/Gc.h"
#include "core/store/Store.h"
#include "ui/charts/ChartExport.h"
#include "ui/gc/GcRunView.h"
#include "ui/gc/GcStepList.h"
#include "ui/gc/MappingTableModel.h"
#include "ui/gc/ReachabilityView.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/StallMonitor.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <qcustomplot.h>

using namespace cs;
using namespace ui;

class TestGcViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void stripMatchesDryRun();
    void hoverNamesObjectAndEntries();
    void runViewRunsGcAndViewsFollow();
    void compareTwoRuns();
    void linkedPackIsRefused();

private:
    void evict(const std::string& key)
    {
        Job job;
        store::EvictPolicy p;
        p.keys = {key};
        store_->evict(p, job);
    }
    gc::GcResult coreDryRun()
    {
        gc::GcOptions o;
        o.dryRun = true;
        o.collectRanges = true;
        Job job;
        return gc::collectStoreGarbage(dir_.path().toStdString(), o, job);
    }
    // Live and dead bytes inside [from, to), straight from the core's ranges.
    static std::pair<uint64_t, uint64_t> bytesIn(const gc::GcResult& r, uint64_t from, uint64_t to)
    {
        auto sum = [&](const std::vector<gc::PackRange>& v) {
            uint64_t t = 0;
            for (const auto& x : v) {
                const uint64_t a = std::max(from, x.offset), b = std::min(to, x.end());
                if (b > a)
                    t += b - a;
            }
            return t;
        };
        return {sum(r.liveRanges), sum(r.deadRanges)};
    }

    QTemporaryDir dir_;
    std::unique_ptr<store::Store> store_;
};

void TestGcViews::initTestCase()
{
    QVERIFY(dir_.isValid());
    store_ = store::Store::init(dir_.path().toStdString());
    const QByteArray shared = testsupport::randomBytes(400000, 1);
    for (int i = 0; i < 8; ++i) {
        const QString file = dir_.path() + QStringLiteral("/input-%1").arg(i);
        const QByteArray data = testsupport::randomBytes(120000 + 30000 * i, 50 + i) + (i % 2 ? shared : QByteArray())
                                + testsupport::textBytes(60000, 90 + i);
        QVERIFY(testsupport::writeFile(file, data));
        Job job;
        store_->putFile("build/cache-" + std::to_string(i), file.toStdString(), job);
    }
    Job job;
    store_->mergeAll(job);
    evict("build/cache-1");
    evict("build/cache-4");
}

void TestGcViews::stripMatchesDryRun()
{
    ReachabilityView view(dir_.path());
    QAbstractItemModelTester tester(view.mappingModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy refreshed(&view, &ReachabilityView::refreshed);
    QSignalSpy failed(&view, &ReachabilityView::refreshFailed);
    view.resize(1200, 700);
    view.show();   // the first show starts the dry run
    QVERIFY(refreshed.wait(30000));
    QCOMPARE(failed.count(), 0);

    const gc::GcResult truth = coreDryRun();
    QVERIFY(truth.stats.liveBytes > 0);
    QVERIFY(truth.stats.reclaimedBytes > 0);
    PackStripWidget* strip = view.strip();
    QCOMPARE(strip->liveBytes(), truth.stats.liveBytes);
    QCOMPARE(strip->deadBytes(), truth.stats.reclaimedBytes);
    QCOMPARE(view.lastDryRun()->stats.liveBytes, truth.stats.liveBytes);

    // The pixel columns add up to what the core's ranges hold in the visible span, at any zoom.
    auto checkColumns = [&] {
        uint64_t live = 0, dead = 0;
        for (const auto& c : strip->columns()) {
            live += c.live;
            dead += c.dead;
        }
        const auto [tl, td] = bytesIn(truth, strip->viewStart(), strip->viewStart() + strip->viewSpan());
        QCOMPARE(live, tl);
        QCOMPARE(dead, td);
        QCOMPARE(int(strip->columns().size()), strip->stripWidth());
    };
    checkColumns();
    QCOMPARE(strip->viewSpan(), truth.stats.split);
    strip->zoomIn();
    strip->zoomIn();
    QVERIFY(strip->viewSpan() < truth.stats.split / 3);
    checkColumns();
    strip->setView(truth.deadRanges.front().offset, 5000);   // deep zoom onto a dead range
    checkColumns();
    QVERIFY(std::any_of(strip->columns().begin(), strip->columns().end(), [](const auto& c) { return c.dead > 0; }));
    strip->zoomToFit();
    QCOMPARE(strip->viewStart(), uint64_t(0));

    // Generation 0 has no mapping; the table is empty but valid.
    QCOMPARE(view.mappingModel()->rowCount(), 0);
    QCOMPARE(view.packSizes().generation, uint64_t(0));
}

void TestGcViews::hoverNamesObjectAndEntries()
{
    ReachabilityView view(dir_.path());
    QSignalSpy refreshed(&view, &ReachabilityView::refreshed);
    view.resize(1200, 700);
    view.show();
    QVERIFY(refreshed.wait(30000));
    PackStripWidget* strip = view.strip();
    const auto data = strip->data();
    // Zoom onto the first live range and hover its first byte.
    const auto live = data->live.front();
    strip->setView(live.offset, std::max<uint64_t>(live.length, uint64_t(strip->stripWidth())));
    std::optional<PackStripWidget::Hover> hover;
    for (int x = 0; x < strip->width() && !hover; ++x)
        if (auto h = strip->hoverAt(x); h && h->hit.live)
            hover = h;
    QVERIFY(hover);
    QSignalSpy details(&view, &ReachabilityView::hoverDetailsReady);
    view.lookUp(*hover);
    QVERIFY(details.wait(20000));
    const QString html = details.last().at(1).toString();
    QVERIFY2(html.contains(QLatin1String("Reached by")), qPrintable(html));
    QVERIFY2(html.contains(QLatin1String("build/cache-")), qPrintable(html));
    QVERIFY(!html.contains(QLatin1String("build/cache-1 ")));   // evicted

    // A dead range: no live entry reaches it.
    const auto dead = data->dead.front();
    PackStripWidget::Hover dh;
    dh.hit = {false, dead};
    dh.offset = dead.offset + dead.length / 2;
    view.lookUp(dh);
    QVERIFY(details.wait(20000));
    const QString deadHtml = details.last().at(1).toString();
    QVERIFY2(deadHtml.contains(QLatin1String("No live entry reaches it")), qPrintable(deadHtml));
    // The same object again comes from the cache, at once.
    view.lookUp(dh);
    QCOMPARE(details.count(), 3);
}

void TestGcViews::runViewRunsGcAndViewsFollow()
{
    const std::string catalog = dir_.path().toStdString() + "/catalog.db";
    const size_t recordedBefore = gc::gcHistory(catalog).size();
    ReachabilityView reach(dir_.path());
    QAbstractItemModelTester tester(reach.mappingModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy refreshed(&reach, &ReachabilityView::refreshed);
    QSignalSpy refreshFailed(&reach, &ReachabilityView::refreshFailed);
    reach.resize(1200, 700);
    reach.show();
    QVERIFY(refreshed.wait(30000));
    QCOMPARE(gc::gcHistory(catalog).size(), recordedBefore); // the view's own dry run is not a recorded run
    const gc::FileSizes projected = reach.projectedSizes();
    const uint64_t liveBefore = reach.strip()->liveBytes();

    GcRunView view(dir_.path());
    connect(&view, &GcRunView::storeModified, &reach, &ReachabilityView::storeChanged);
    QSignalSpy history(&view, &GcRunView::historyLoaded);
    QSignalSpy done(&view, &GcRunView::runFinished);
    QSignalSpy modified(&view, &GcRunView::storeModified);
    view.resize(1200, 700);
    view.show();
    QVERIFY(history.wait(20000));
    const size_t runsBefore = view.runs().size();
    QCOMPARE(runsBefore, recordedBefore);

    StallMonitor monitor;
    monitor.start();
    QTest::mouseClick(view.runButton(), Qt::LeftButton);
    QVERIFY(view.jobRunner()->isRunning());
    QVERIFY(!view.runButton()->isEnabled());
    QVERIFY(done.wait(60000));
    const int stall = monitor.longestStallMs();
    monitor.stop();
    QCOMPARE(done.last().at(0).toBool(), true);
    // The run is off the GUI thread (the runner was busy when the click
    // returned); how late the heartbeat got is printed, not asserted.
    qInfo("GUI thread heartbeat at most %d ms late during the GC (load %s)", stall,
          qPrintable(testsupport::loadAverageText()));
    QCOMPARE(modified.count(), 1);

    const gc::GcStats& st = view.lastResult()->stats;
    QCOMPARE(st.status, std::string("done"));
    QCOMPARE(st.generation, uint64_t(1));
    for (int i = 0; i < view.stepList()->count(); ++i)
        QVERIFY(view.stepList()->stepState(i) == GcStepList::StepState::Done);
    QCOMPARE(view.stepsModel()->rowCount(), int(gc::gcStepNames().size()) + 1);   // + total
    QCOMPARE(view.stepsModel()->columnCount(), 12);
    QCOMPARE(view.stepsModel()->item(0, 0)->text(), QStringLiteral("open"));
    // The table says where the copies happen, so a small "copy prefix" is not misread.
    QCOMPARE(view.stepsModel()->item(1, 0)->text(), QStringLiteral("traverse"));
    QVERIFY(view.stepsModel()->item(1, 11)->text().contains(QStringLiteral("copies happen here")));
    QCOMPARE(view.stepsModel()->item(3, 0)->text(), QStringLiteral("copy prefix"));
    QVERIFY(view.stepsModel()->item(3, 11)->text().contains(QStringLiteral("copied during traverse")));
    QVERIFY(view.totalsModel()->rowCount() > 10);
    // What the dry run projected is what the GC left.
    QCOMPARE(st.after.prefix, projected.prefix);
    QCOMPARE(st.after.mapping, projected.mapping);
    QCOMPARE(st.after.suffix, projected.suffix);
    QCOMPARE(st.liveBytes, liveBefore);

    if (history.count() < 2)
        QVERIFY(history.wait(20000));
    QCOMPARE(view.runs().size(), runsBefore + 1);
    QCOMPARE(view.runs().front().id, view.lastResult()->runId);
    // The reachability view re-read the new generation after the swap.
    if (refreshed.count() < 2)
        QVERIFY(refreshed.wait(30000));
    QCOMPARE(refreshFailed.count(), 0);
    QCOMPARE(reach.packSizes().generation, uint64_t(1));
    QCOMPARE(uint64_t(reach.mappingModel()->rowCount()), st.ranges);
    QVERIFY(reach.mappingModel()->rowCount() > 0);
    QCOMPARE(reach.strip()->deadBytes(), uint64_t(0));
    QCOMPARE(reach.strip()->liveBytes(), liveBefore);
    // Mapping rows as the core has them.
    const auto g = reach.mappingModel()->generation();
    const auto rec = g->mapping.at(0);
    QCOMPARE(reach.mappingModel()->index(0, MappingTableModel::Offset).data(RawValueRole).toULongLong(), rec.offset);
    QCOMPARE(reach.mappingModel()->index(0, MappingTableModel::Length).data(RawValueRole).toULongLong(), rec.length);
}

void TestGcViews::compareTwoRuns()
{
    evict("build/cache-6");
    GcRunView view(dir_.path());
    QSignalSpy history(&view, &GcRunView::historyLoaded);
    QSignalSpy done(&view, &GcRunView::runFinished);
    QVERIFY(history.wait(20000));
    view.runGc();
    QVERIFY(done.wait(60000));
    QVERIFY(done.last().at(0).toBool());
    QVERIFY(history.wait(20000));
    std::vector<int64_t> real;
    for (const auto& r : view.runs())
        if (!r.dryRun && r.stats.status == "done")
            real.push_back(r.id);
    QVERIFY(real.size() >= 2);

    // Select the two real runs in the history table and compare them.
    QVERIFY(!view.showDryRuns()->isChecked());
    QCOMPARE(view.historyModel()->rowCount(), int(real.size()));
    view.historyView()->selectRow(0);
    view.historyView()->selectionModel()->select(view.historyModel()->index(1, 0),
                                                 QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QSignalSpy compared(&view, &GcRunView::compared);
    view.compareSelected();
    QCOMPARE(compared.count(), 1);
    const auto& runs = view.runs();
    auto find = [&](int64_t id) {
        return *std::find_if(runs.begin(), runs.end(), [&](const gc::GcRun& r) { return r.id == id; });
    };
    const auto rows = gc::compareGcRuns(find(real[1]).stats, find(real[0]).stats);   // older is A
    QCOMPARE(view.compareModel()->rowCount(), int(rows.size()));
    QCOMPARE(view.compareModel()->columnCount(), 4);
    for (int i = 0; i < int(rows.size()); ++i) {
        QCOMPARE(view.compareModel()->item(i, 0)->text(), QString::fromStdString(rows[size_t(i)].figure));
        QCOMPARE(view.compareModel()->item(i, 3)->data(RawValueRole).toDouble(), rows[size_t(i)].percent);
    }
    QCOMPARE(view.chart()->plottableCount(), 2);
    QVERIFY(!view.compareRuns(real[0], 999999));

    // Chart and tables export.
    QTemporaryDir out;
    QString error;
    for (const char* ext : {"png", "svg", "pdf"}) {
        const QString path = out.path() + "/chart." + ext;
        QVERIFY2(exportPlot(view.chart(), path, &error, QSize(640, 400)), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 100);
    }
    QVERIFY2(exportCsv(view.compareModel(), out.path() + "/compare.csv", &error), qPrintable(error));
    const QByteArray csv = testsupport::readFile(out.path() + "/compare.csv");
    QVERIFY(csv.contains("objects_visited"));
    QCOMPARE(csv.count('\n'), qsizetype(rows.size() + 1));
}

// A pack/ that is a link to a pack elsewhere: the views open the store
// through its layout, which never follows a link inside a store, so the dry
// run and a lookup fail naming the link (Pack::open(dir + "/pack"), as the
// view did before, followed it and showed the other folder's pack).
void TestGcViews::linkedPackIsRefused()
{
    QTemporaryDir tmp;
    const QString storeDir = tmp.filePath(QStringLiteral("store"));
    {
        auto s = store::Store::init(storeDir.toStdString());
        const QString file = tmp.filePath(QStringLiteral("input"));
        QVERIFY(testsupport::writeFile(file, testsupport::randomBytes(200000, 7)));
        Job job;
        s->putFile("linked", file.toStdString(), job);
        s->mergeAll(job);
    }
    QVERIFY(QDir().rename(storeDir + QStringLiteral("/pack"), tmp.filePath(QStringLiteral("elsewhere"))));
    QVERIFY(QFile::link(tmp.filePath(QStringLiteral("elsewhere")), storeDir + QStringLiteral("/pack")));

    ReachabilityView view(storeDir);
    QSignalSpy refreshed(&view, &ReachabilityView::refreshed);
    QSignalSpy failed(&view, &ReachabilityView::refreshFailed);
    view.show();
    QVERIFY(failed.wait(30000));
    QCOMPARE(refreshed.count(), 0);
    const QString error = failed.first().at(0).toString();
    QVERIFY2(error.contains(storeDir + QStringLiteral("/pack")) && error.contains(QLatin1String("symbolic link")),
             qPrintable(error));

    QSignalSpy details(&view, &ReachabilityView::hoverDetailsReady);
    PackStripWidget::Hover hover;
    hover.hit = {true, {0, 1}};
    view.lookUp(hover);
    QVERIFY(details.wait(20000));
    const QString html = details.last().at(1).toString();
    QVERIFY2(html.contains(QLatin1String("Cannot read the object")) && html.contains(QLatin1String("symbolic link")),
             qPrintable(html));
}

CACHESCOPE_TEST_MAIN(TestGcViews)
#include "tst_gc_views.moc"
