// The cache-server document's Report tab (ui/actions/ActionsReportView.h)
// on the fixture data dir: built off the GUI thread when the tab is first
// shown, the same figures the core's report gives, drawn as four bar
// panels (families, scopes, days since the last download with the
// never-downloaded bar, past retention by reason) in bytes, with the
// entries past the retention listed with their reasons ("the oldest N of M
// listed"); exported as PNG and SVG like the benchmark charts; progress
// and Cancel (a cancelled report leaves the size index as it was); and
// `cachescope --render-report` (what `actions-cache report --plot` runs)
// drawing the CLI's JSON to a PNG. The data dir is not changed.
#include "common/ActionsCacheFixture.h"
#include "common/TestSupport.h"
#include "common/TreeHash.h"

#include "core/entries/ServerReport.h"
#include "core/jobs/Job.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsReportView.h"
#include "ui/actions/ReportChart.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/MainWindow.h"

#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>

#include <qcustomplot.h>
#include <sqlite3.h>

using testsupport::ActionsCacheFixture;

namespace {

cs::entries::ServerReport coreReport(const QString& dir, int retentionDays, size_t retentionList = 1000)
{
    auto cache = cs::actions::ActionsCache::open(cs::actions::resolveDataDir(dir.toStdString()));
    cs::Job job("report");
    job.start();
    cs::entries::ReportOptions options;
    options.repetition = false;
    options.retentionDays = retentionDays;
    options.retentionList = retentionList;
    return cs::entries::buildServerReport(*cache, options, job);
}

double barSum(QCPBars* bars)
{
    double sum = 0;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        sum += it->value;
    return sum;
}

ui::ActionsDocument* openDocument(ui::MainWindow& w, const QString& dir)
{
    if (!w.openPath(dir))
        return nullptr;
    auto* doc = qobject_cast<ui::ActionsDocument*>(w.currentDocument());
    if (!doc || !QTest::qWaitFor([doc] { return doc->isLoaded() && !doc->isReading(); }, 20000))
        return nullptr;
    return doc;
}

} // namespace

class TestActionsReportView : public QObject {
    Q_OBJECT
    QTemporaryDir cacheHome_;

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-actions-report"));
        QVERIFY(cacheHome_.isValid());
        qputenv("XDG_CACHE_HOME", cacheHome_.path().toUtf8());
    }

    void reportTabShowsTheCoresFiguresAsCharts()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral(".data"));
        QDir().mkpath(dir);
        ActionsCacheFixture f(dir);
        const auto before = testsupport::hashTree(dir);
        ui::MainWindow w;
        w.resize(1300, 900);
        w.show();
        auto* doc = openDocument(w, dir);
        QVERIFY(doc);
        ui::ActionsReportView* view = doc->reportView();
        QVERIFY(view);
        QVERIFY(!view->report());   // built only when first shown
        // One day: entries never downloaded and one downloaded 2 days ago are past it.
        view->retentionBox()->setValue(1);
        QSignalSpy built(view, &ui::ActionsReportView::built);
        doc->views()->setCurrentWidget(view);
        QVERIFY(built.wait(30000));
        QVERIFY2(built.first().at(0).toBool(), qPrintable(built.first().at(1).toString()));
        QVERIFY(view->report());

        const auto core = coreReport(dir, 1);
        const auto& r = *view->report();
        QCOMPARE(r.entries, core.entries);
        QCOMPARE(r.bytes, core.bytes);
        QCOMPARE(r.families.size(), core.families.size());
        QCOMPARE(r.neverDownloadedBytes, core.neverDownloadedBytes);
        QCOMPARE(r.orphanBytes, core.orphanBytes);
        QCOMPARE(r.retentionDays, 1);
        QCOMPARE(r.pastRetentionEntries, core.pastRetentionEntries);

        // Four panels of bars in bytes: the five families, the one scope,
        // six age bars + never downloaded, the two reasons.
        QCustomPlot* plot = view->plot();
        QCOMPARE(plot->axisRects().size(), int(ui::ReportPanel::Count));
        QCOMPARE(plot->plottableCount(), int(ui::ReportPanel::Count));
        auto* families = qobject_cast<QCPBars*>(plot->plottable(int(ui::ReportPanel::Families)));
        QVERIFY(families);
        QCOMPARE(families->data()->size(), int(core.families.size()));
        QCOMPARE(barSum(families), double(core.bytes));
        auto* age = qobject_cast<QCPBars*>(plot->plottable(int(ui::ReportPanel::Age)));
        QCOMPARE(age->data()->size(), int(core.age.size()) + 1);
        QCOMPARE(barSum(age), double(core.bytes));
        auto* past = qobject_cast<QCPBars*>(plot->plottable(int(ui::ReportPanel::PastRetention)));
        QCOMPARE(past->data()->size(), 2);
        QCOMPARE(barSum(past), double(core.pastRetentionBytes));
        QVERIFY(core.pastRetentionByReason[0] > 0 && core.pastRetentionByReason[1] > 0);
        // The value axis reads sizes, not raw byte counts.
        QVector<double> ticks;
        QVector<QString> labels;
        plot->axisRects().at(0)->axis(QCPAxis::atBottom)->ticker()->generate(
            plot->axisRects().at(0)->axis(QCPAxis::atBottom)->range(), QLocale::c(), QLatin1Char('g'), 6, ticks,
            nullptr, &labels);
        QVERIFY(labels.size() > 1);
        QVERIFY2(labels.last().contains(QStringLiteral("iB")), qPrintable(labels.last()));

        // The list of entries past the retention: every one (3 < 1000), with its reason.
        const QString header = view->retentionHeader()->text();
        QVERIFY2(header.contains(QStringLiteral("the oldest %1 of %1 listed").arg(core.pastRetentionEntries)),
                 qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("%1 never downloaded").arg(core.pastRetentionByReason[0])),
                 qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("%1 awaiting").arg(core.pastRetentionByReason[1])), qPrintable(header));
        auto* list = view->retainedModel();
        QCOMPARE(list->rowCount(), int(core.pastRetention.size()));
        QSet<QString> reasons;
        for (int i = 0; i < list->rowCount(); ++i) {
            QCOMPARE(list->index(i, ui::RetainedEntryModel::Key).data().toString(),
                     QString::fromStdString(core.pastRetention[size_t(i)].key));
            reasons << list->index(i, ui::RetainedEntryModel::Reason).data().toString();
        }
        QCOMPARE(reasons, (QSet<QString>{QStringLiteral("never-downloaded"), QStringLiteral("awaiting-cleanup")}));
        QVERIFY(ui::serverReportCaption(r).contains(QStringLiteral("Health: 1 orphan folders")));

        for (const QString& ext : {QStringLiteral("png"), QStringLiteral("svg")}) {
            const QString out = tmp.filePath(QStringLiteral("report.") + ext);
            QString error;
            QVERIFY2(view->exportChart(out, &error), qPrintable(error));
            QVERIFY(QFileInfo(out).size() > 1000);
        }
        QVERIFY(!QImage(tmp.filePath(QStringLiteral("report.png"))).isNull());
        QCOMPARE(testsupport::hashTree(dir), before);
    }

    // A list bounded below the count says how many of them it names.
    void boundedListSaysHowManyAreListed()
    {
        QTemporaryDir tmp;
        ActionsCacheFixture f(tmp.path());
        const auto r = coreReport(f.dataDir(), 1, 2);
        QVERIFY(r.pastRetentionEntries > 2);
        const QString text = ui::pastRetentionSummary(r);
        QVERIFY2(text.contains(QStringLiteral("the oldest 2 of %1 listed").arg(r.pastRetentionEntries)), qPrintable(text));
    }

    // 40,000 more rows make the first index scan long enough to cancel:
    // the progress bar shows it, Cancel ends it, the index is as it was
    // (the next report scans in full) and Refresh builds it.
    void progressAndCancel()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("data"));
        QDir().mkpath(dir);
        ActionsCacheFixture f(dir);
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(f.dbPath().toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db,
                              "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) "
                              "INSERT INTO storage_locations (id, folderName, partCount) SELECT 'many-loc-' || i, "
                              "CAST(3000000000 + i AS TEXT), 1 FROM n; "
                              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) "
                              "INSERT INTO cache_entries (id, key, version, scope, repoId, updatedAt, locationId) "
                              "SELECT 'many-' || i, 'many-key-' || printf('%06d', i), 'v1', 'refs/heads/main', '1', "
                              "1700000000000 + i, 'many-loc-' || i FROM n; COMMIT;",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        ui::MainWindow w;
        w.show();
        auto* doc = openDocument(w, dir);
        QVERIFY(doc);
        ui::ActionsReportView* view = doc->reportView();
        QSignalSpy built(view, &ui::ActionsReportView::built);
        QSignalSpy progress(view->runner(), &ui::JobRunner::progress);
        bool cancelled = false;
        connect(view->runner(), &ui::JobRunner::progress, view, [&] {
            if (!cancelled) {
                cancelled = true;
                QVERIFY(view->progress()->isVisible());
                view->progress()->cancelButton()->click();
            }
        });
        doc->views()->setCurrentWidget(view);
        QVERIFY(built.wait(60000));
        QVERIFY(cancelled);
        QCOMPARE(built.first().at(0).toBool(), false);
        QVERIFY(!view->report());
        QVERIFY2(view->statusLabel()->text().startsWith(QStringLiteral("Cancelled")), qPrintable(view->statusLabel()->text()));
        QTRY_VERIFY(!view->progress()->isVisible());

        QObject::disconnect(view->runner(), &ui::JobRunner::progress, view, nullptr);
        view->refresh();
        QVERIFY(built.wait(120000));
        QVERIFY2(built.last().at(0).toBool(), qPrintable(built.last().at(1).toString()));
        QVERIFY(view->report());
        QCOMPARE(view->report()->entries, uint64_t(40000 + f.entries().size()));
        QVERIFY(view->report()->index.full);   // the cancelled scan left no index behind
    }

    void renderReportDrawsTheCliJson()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("data"));
        QDir().mkpath(dir);
        ActionsCacheFixture f(dir);
        const auto r = coreReport(dir, 1);
        const QString json = tmp.filePath(QStringLiteral("report.json"));
        QVERIFY(testsupport::writeFile(json, QByteArray::fromStdString(cs::dumpJson(cs::entries::serverReportJson(r)))));
        const QString png = tmp.filePath(QStringLiteral("report.png"));
        const auto run = testsupport::run(QStringLiteral(CACHESCOPE_GUI),
                                          {QStringLiteral("--render-report"), json, QStringLiteral("--output"), png});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(ui::kReportImageWidth, ui::kReportImageHeight));
        // Not a blank page: the bars and text leave many colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 4);
        // A file that is no report: one sentence naming it, exit 1.
        QVERIFY(testsupport::writeFile(json, "{\"entries\": 1}"));
        const auto bad = testsupport::run(QStringLiteral(CACHESCOPE_GUI),
                                          {QStringLiteral("--render-report"), json, QStringLiteral("--output"), png});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains("report.json") && bad.err.contains("is not an actions-cache report"), bad.err.constData());
    }
};

CACHESCOPE_TEST_MAIN(TestActionsReportView)
#include "tst_actions_report_view.moc"
