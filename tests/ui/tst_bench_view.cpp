// The benchmarks view, headless: a short scenario runs in the document, the
// live graph receives its samples, the history has the run, two runs compare,
// the exports parse back (PNG, PDF, SVG with the series' paths, CSV, JSON),
// a million live points are drawn a bounded batch per tick, and the GUI
// thread's longest busy spell is printed.
#include "common/BusyProbe.h"
#include "common/LoadAverage.h"
#include "common/TestSupport.h"

#include "core/bench/SamplesCsv.h"
#include "core/bench/Bench.h"
#include "ui/bench/BenchModels.h"
#include "ui/bench/BenchmarkDocument.h"
#include "ui/bench/SamplePlot.h"
#include "ui/bench/SummaryChart.h"
#include "ui/charts/ChartExport.h"
#include "ui/shell/StallMonitor.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QAbstractEventDispatcher>
#include <QXmlStreamReader>

#include <cstdlib>
#include <map>
#include <thread>
#include <time.h>

// How long the GUI thread was busy at once and how late its heartbeat was:
// figures printed for the reader, not asserted (a test asserts the work the
// GUI thread is given, not a time, which depends on the machine's load and
// build). tests/ui measure responsiveness by structure: work bounded per
// event-loop turn, long work off the GUI thread.
static void reportStalls(int stallMs, const testsupport::BusyProbe& busy, const char* what)
{
    qInfo("GUI thread busy at most %.1f ms at once (longest event-loop turn %.1f ms of CPU), heartbeat at most %d ms "
          "late %s (load %s)",
          busy.longestMs(), busy.longestTurnMs(), stallMs, what, qPrintable(testsupport::loadAverageText()));
}

class TestBenchView : public QObject {
    Q_OBJECT

private:
    QTemporaryDir tmp_;
    QString historyPath() const { return tmp_.path() + QStringLiteral("/history.db"); }

    qint64 runTiny(ui::BenchmarkDocument& doc, ui::StallMonitor* monitor = nullptr, testsupport::BusyProbe* busy = nullptr)
    {
        doc.selectScenario(QStringLiteral("snapshot"));
        doc.setParam(QStringLiteral("populated"), QStringLiteral("6MiB"));
        doc.setParam(QStringLiteral("sparse"), QStringLiteral("24MiB"));
        doc.setParam(QStringLiteral("chunk"), QStringLiteral("256KiB"));
        doc.setParam(QStringLiteral("workers"), QStringLiteral("2"));
        QSignalSpy finished(&doc, &ui::BenchmarkDocument::runFinished);
        if (monitor)
            monitor->reset();
        if (busy)
            busy->reset();
        if (!doc.run())
            return -1;
        if (!finished.wait(60000))
            return -1;
        if (finished.first().at(1).toString() != QLatin1String("done"))
            return -2;
        return finished.first().at(0).toLongLong();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        QDir(tmp_.path()).mkpath(QStringLiteral("scratch"));
        qputenv("TMPDIR", (tmp_.path() + QStringLiteral("/scratch")).toUtf8());
    }

    void runShowsLiveSamplesAndKeepsHistory()
    {
        ui::StallMonitor monitor;
        monitor.start();
        testsupport::BusyProbe busy;
        ui::BenchmarkDocument doc(historyPath());
        doc.resize(1300, 850);
        doc.show();
        QVERIFY(QTest::qWaitForWindowExposed(&doc));
        QTest::qWait(100);  // the first layout and paint are not part of the run
        QAbstractItemModelTester t1(const_cast<ui::HistoryModel*>(doc.historyModel()), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(const_cast<ui::ResultTableModel*>(doc.resultModel()), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The finished run's summary is drawn by one replot, at its final
        // size (a scroll bar that appeared a turn later cost a second one).
        int summaryReplots = 0;
        connect(doc.summary(), &QCustomPlot::afterReplot, this, [&] { summaryReplots += doc.summary()->pairCount() > 0; });
        const qint64 id = runTiny(doc, &monitor, &busy);
        QVERIFY2(id > 0, "the snapshot scenario did not finish as done");
        const int stall = monitor.longestStallMs();
        QTest::qWait(50);
        QCOMPARE(summaryReplots, 1);
        // The live timer drew samples while the scenario ran.
        QVERIFY(doc.liveSamplesReceived() > 0);
        QVERIFY(doc.plot()->pointCount(QStringLiteral("RSS MB")) > 0);
        QVERIFY(doc.plot()->pointCount(QStringLiteral("throughput MB/s")) > 0);
        // The history has the run, with the same samples the view shows.
        QVERIFY(doc.historyModel()->rowOf(id) >= 0);
        const auto stored = cs::BenchHistory::openFile(historyPath().toStdString()).load(id);
        QVERIFY(stored);
        QCOMPARE(stored->status, std::string("done"));
        QCOMPARE(doc.shownRuns().size(), size_t(1));
        QCOMPARE(doc.shownRuns()[0].samples.size(), stored->samples.size());
        QCOMPARE(doc.liveSamplesReceived(), qint64(stored->samples.size()));
        QVERIFY(doc.resultModel()->rowCount() > 10);
        reportStalls(stall, busy, "during the run");
    }

    // The timeline of a finished run: a band per phase, one graph per phase
    // and series (the counters restart in their band), each in the panel of
    // its quantity with one unit per axis, throughput smoothed with a mean
    // line per phase; the live view had the bands while the run went on.
    void timelineHasAGraphPerPhaseAndSeriesAndAnAxisPerUnit()
    {
        ui::BenchmarkDocument doc(historyPath());
        doc.resize(1300, 850);
        doc.show();
        QVERIFY(QTest::qWaitForWindowExposed(&doc));
        int liveBands = 0;
        connect(doc.plot(), &QCustomPlot::afterReplot, this,
                [&] { liveBands = std::max(liveBands, doc.plot()->phaseBandCount()); });
        const qint64 id = runTiny(doc);
        QVERIFY(id > 0);
        disconnect(doc.plot(), &QCustomPlot::afterReplot, this, nullptr);
        QVERIFY2(liveBands >= 3, qPrintable(QString::number(liveBands)));
        const cs::BenchRun& run = doc.shownRuns().at(0);
        const auto& phases = run.result.phases;
        QVERIFY(phases.size() >= 8);
        ui::SamplePlot* plot = doc.plot();
        QCOMPARE(plot->phaseBandCount(), int(phases.size()));
        // Samples per series and phase, counted here from the stored run.
        std::map<std::string, std::map<int, int>> counts;
        std::map<std::string, std::map<int, double>> sums;
        for (const auto& s : run.samples) {
            const int k = cs::phaseAt(phases, s.t);
            counts[s.series][k]++;
            sums[s.series][k] += s.value;
        }
        QVERIFY(counts.count("done MB") && counts.count("RSS MB") && counts.count("CPU cores") &&
                counts.count("throughput MB/s"));
        int graphs = 0;
        for (const auto& [series, perPhase] : counts) {
            const QString name = QString::fromStdString(series);
            QCOMPARE(plot->phaseGraphCount(name), int(perPhase.size()));
            QCPAxisRect* rect = plot->panelRect(ui::SamplePlot::panelOf(name));
            QVERIFY(rect);
            for (const auto& [phase, n] : perPhase) {
                QCPGraph* g = plot->graphOf(name, phase);
                QVERIFY2(g, qPrintable(name + QStringLiteral(" in phase ") + QString::number(phase)));
                QCOMPARE(g->data()->size(), n);
                QCOMPARE(g->valueAxis()->axisRect(), rect);
                ++graphs;
                if (name == QLatin1String("throughput MB/s")) {
                    QVERIFY(plot->smoothedGraphOf(name, phase));
                    QCOMPARE(plot->smoothedGraphOf(name, phase)->data()->size(), n);
                    QCPItemLine* mean = plot->meanLineOf(name, phase);
                    QVERIFY(mean);
                    QVERIFY(std::abs(mean->start->coords().y() - sums[series][phase] / n) < 1e-9);
                    QCOMPARE(mean->start->coords().x(), phases[size_t(phase)].start);
                }
            }
        }
        QCOMPARE(plot->graphCountForSeries(), graphs);
        // One axis per unit: the four quantities of the snapshot scenario,
        // RSS of ours and of zstd together, bytes done apart from it.
        const QStringList panels = plot->panels();
        QCOMPARE(QSet<QString>(panels.begin(), panels.end()),
                 (QSet<QString>{QStringLiteral("bytes done (MB)"), QStringLiteral("RSS (MB)"),
                                QStringLiteral("CPU (cores)"), QStringLiteral("throughput (MB/s)")}));
        QCOMPARE(plot->panelRect(QStringLiteral("RSS (MB)")), plot->panelRect(ui::SamplePlot::panelOf(QStringLiteral("zstd RSS MB"))));
        QVERIFY(plot->panelRect(QStringLiteral("RSS (MB)")) != plot->panelRect(QStringLiteral("bytes done (MB)")));
        for (const QString& panel : plot->panels())
            QVERIFY(plot->panelRect(panel)->axis(QCPAxis::atLeft)->label().startsWith(panel));
        QVERIFY(plot->panelRect(QStringLiteral("throughput (MB/s)"))->axis(QCPAxis::atLeft)->label().contains(QStringLiteral("1 s moving mean")));
    }

    // The summary chart exported as SVG: a pair of bars per comparison
    // (ours, reference), the ratio printed on each pair, and the caption.
    void summaryChartExportsBarsRatiosAndCaption()
    {
        ui::BenchmarkDocument doc(historyPath());
        doc.resize(1200, 800);
        const auto runs = cs::BenchHistory::openFile(historyPath().toStdString()).list("snapshot");
        QVERIFY(!runs.empty());
        QVERIFY(doc.showRun(runs.front().id));
        const cs::BenchRun& run = doc.shownRuns().at(0);
        QVERIFY(run.result.comparisons.size() >= 4);
        QCOMPARE(doc.summary()->pairCount(), int(run.result.comparisons.size()));
        const QString svg = tmp_.path() + QStringLiteral("/summary.svg");
        QString error;
        QVERIFY2(doc.exportChart(svg, &error), qPrintable(error));
        QXmlStreamReader xml(testsupport::readFile(svg));
        QStringList texts;
        QMap<QString, int> shapesByFill;
        QStringList fills{QString()};
        while (!xml.atEnd()) {
            const auto token = xml.readNext();
            if (token == QXmlStreamReader::StartElement) {
                const QString fill = xml.attributes().value(QLatin1String("fill")).toString().toLower();
                fills.push_back(fill.isEmpty() ? fills.back() : fill);
                if (xml.name() == QLatin1String("text"))
                    texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified();
                if (xml.name() == QLatin1String("path") || xml.name() == QLatin1String("rect") ||
                    xml.name() == QLatin1String("polygon"))
                    shapesByFill[fills.back()]++;
                if (xml.tokenType() == QXmlStreamReader::EndElement)
                    fills.pop_back();
            } else if (token == QXmlStreamReader::EndElement) {
                fills.pop_back();
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        const QString all = texts.join(QLatin1Char(' '));
        // One bar of ours and one of the reference per comparison, plus each one's legend icon.
        const int pairs = int(run.result.comparisons.size());
        QCOMPARE(shapesByFill.value(ui::SummaryChart::oursColor().name()), pairs + 1);
        QCOMPARE(shapesByFill.value(ui::SummaryChart::referenceColor().name()), pairs + 1);
        for (const auto& c : run.result.comparisons) {
            QVERIFY2(texts.contains(ui::SummaryChart::ratioText(c.ratio)), qPrintable(ui::SummaryChart::ratioText(c.ratio)));
            QVERIFY(all.contains(ui::SummaryChart::pairName(c)));
        }
        // The caption: scenario, parameters, machine, version and date.
        QVERIFY(all.contains(QStringLiteral("scenario snapshot")));
        QVERIFY(all.contains(QStringLiteral("populated=6MiB")));
        QVERIFY(all.contains(QString::fromStdString(run.machine.cpu)));
        QVERIFY(all.contains(QStringLiteral(CACHESCOPE_VERSION)));
        QVERIFY(all.contains(QDateTime::fromSecsSinceEpoch(qint64(run.started)).toString(QStringLiteral("yyyy-MM-dd"))));
    }

    void exportsParseBack()
    {
        ui::BenchmarkDocument doc(historyPath());
        doc.resize(1200, 800);
        const auto runs = cs::BenchHistory::openFile(historyPath().toStdString()).list("snapshot");
        QVERIFY(!runs.empty());
        QVERIFY(doc.showRun(runs.front().id));
        const size_t samples = doc.shownRuns()[0].samples.size();
        QString error;

        const QString png = tmp_.path() + QStringLiteral("/chart.png");
        QVERIFY2(doc.exportChart(png, &error), qPrintable(error));
        const QByteArray pngBytes = testsupport::readFile(png);
        QVERIFY(pngBytes.startsWith("\x89PNG\r\n\x1a\n"));
        QImage image;
        QVERIFY(image.loadFromData(pngBytes, "PNG"));
        QCOMPARE(image.size(), QSize(1100, 720));   // the summary chart's export size

        const QString pdf = tmp_.path() + QStringLiteral("/chart.pdf");
        QVERIFY2(doc.exportChart(pdf, &error), qPrintable(error));
        const QByteArray pdfBytes = testsupport::readFile(pdf);
        QVERIFY(pdfBytes.startsWith("%PDF-"));
        QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
        QVERIFY(pdfBytes.size() > 2000);

        const QString svg = tmp_.path() + QStringLiteral("/chart.svg");
        QVERIFY2(doc.exportTimeline(svg, &error), qPrintable(error));
        QXmlStreamReader xml(testsupport::readFile(svg));
        int paths = 0;
        QSet<QString> strokes;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                if (xml.name() == QLatin1String("path") || xml.name() == QLatin1String("polyline"))
                    ++paths;
                // QSvgGenerator puts the pen on the enclosing <g>.
                const auto stroke = xml.attributes().value(QLatin1String("stroke"));
                if (!stroke.isEmpty())
                    strokes.insert(stroke.toString().toLower());
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(paths > 3);
        // Every series' colour is drawn as a path (the timeline's export).
        for (int i = 0; i < doc.plot()->graphCount(); ++i) {
            const QString colour = doc.plot()->graph(i)->pen().color().name().toLower();
            QVERIFY2(strokes.contains(colour), qPrintable(colour));
        }

        const QString csv = tmp_.path() + QStringLiteral("/samples.csv");
        QVERIFY2(doc.exportSamplesCsv(csv, &error), qPrintable(error));
        const QList<QByteArray> lines = testsupport::readFile(csv).trimmed().split('\n');
        QCOMPARE(lines.first().trimmed(), QByteArray("t,series,value"));
        QCOMPARE(size_t(lines.size()), samples + 1);
        for (int i = 1; i < lines.size(); i += 97)
            QCOMPARE(lines[i].count(','), 2);
        // The dialect cachescope --render-samples and the CLI share.
        QCOMPARE(cs::readSamplesCsvFile(csv.toStdString()).size(), samples);

        const QString json = tmp_.path() + QStringLiteral("/result.json");
        QVERIFY2(doc.exportResultJson(json, &error), qPrintable(error));
        const QJsonObject o = QJsonDocument::fromJson(testsupport::readFile(json)).object();
        QCOMPARE(o.value(QStringLiteral("scenario")).toString(), QStringLiteral("snapshot"));
        QCOMPARE(o.value(QStringLiteral("id")).toInteger(), runs.front().id);
        QVERIFY(o.value(QStringLiteral("result")).toObject().value(QStringLiteral("rows")).toArray().size() > 10);

        // A failed write is reported, not silent.
        QVERIFY(!doc.exportChart(QStringLiteral("/nonexistent/dir/chart.png"), &error));
        QVERIFY(error.contains(QStringLiteral("/nonexistent/dir/chart.png")));
    }

    void compareTwoRuns()
    {
        ui::BenchmarkDocument doc(historyPath());
        const qint64 second = runTiny(doc);
        QVERIFY(second > 0);
        const auto runs = cs::BenchHistory::openFile(historyPath().toStdString()).list("snapshot");
        QVERIFY(runs.size() >= 2);
        const qint64 first = runs.back().id;
        QVERIFY(doc.compare(first, second));
        QVERIFY(doc.resultModel()->isComparison());
        QCOMPARE(doc.resultModel()->columnCount(), 5);
        // Both runs' graphs are overlaid.
        QVERIFY(doc.plot()->pointCount(QStringLiteral("RSS MB"), 0) > 0);
        QVERIFY(doc.plot()->pointCount(QStringLiteral("RSS MB"), 1) > 0);
        // The percentage column is B / A of the two stored results.
        const auto a = doc.shownRuns()[0].result.value("ratio ours");
        const auto b = doc.shownRuns()[1].result.value("ratio ours");
        bool found = false;
        for (int r = 0; r < doc.resultModel()->rowCount(); ++r) {
            if (doc.resultModel()->index(r, 0).data().toString() == QLatin1String("ratio ours")) {
                found = true;
                QCOMPARE(doc.resultModel()->index(r, 4).data(ui::RawValueRole).toDouble(), b / a * 100.0);
            }
        }
        QVERIFY(found);
        QString error;
        const QString csv = tmp_.path() + QStringLiteral("/compare.csv");
        QVERIFY(doc.exportSamplesCsv(csv, &error));
        const auto lines = testsupport::readFile(csv).trimmed().split('\n');
        QCOMPARE(size_t(lines.size()), doc.shownRuns()[0].samples.size() + doc.shownRuns()[1].samples.size() + 1);
    }

    // A replot draws the plot's buffers and asks for a paint; the paint
    // comes on a later event, not inside the replot (QCustomPlot's default,
    // phImmediateRefresh, flushed the whole window's dirty region there).
    void replotsDoNotPaintInside()
    {
        ui::BenchmarkDocument doc(historyPath());
        doc.resize(1200, 800);
        doc.show();
        QVERIFY(QTest::qWaitForWindowExposed(&doc));
        const auto runs = cs::BenchHistory::openFile(historyPath().toStdString()).list("snapshot");
        QVERIFY(!runs.empty());
        QVERIFY(doc.showRun(runs.front().id));
        QTest::qWait(50);
        struct PaintCount : QObject {
            int paints = 0;
            bool eventFilter(QObject*, QEvent* e) override { paints += e->type() == QEvent::Paint; return false; }
        } count;
        // The summary's tab is the one shown (a hidden plot never paints).
        for (QCustomPlot* plot : {static_cast<QCustomPlot*>(doc.summary())}) {
            QVERIFY(plot->isVisible());
            plot->installEventFilter(&count);
            count.paints = 0;
            plot->replot();
            QCOMPARE(count.paints, 0);
            QTRY_VERIFY(count.paints > 0);
            plot->removeEventFilter(&count);
        }
    }

    // A million samples arriving at once are drawn over many ticks of at most
    // kMaxLiveSamplesPerTick each, so the event loop runs between them; every
    // point is kept and drawn with QCustomPlot's adaptive sampling (a graph
    // draws about two points per pixel column, not a million).
    void aMillionLivePointsInBoundedTicks()
    {
        ui::BenchmarkDocument doc(historyPath());
        doc.resize(1200, 800);
        doc.show();
        QVERIFY(QTest::qWaitForWindowExposed(&doc));
        doc.setLiveWindowSeconds(0);  // keep every point
        doc.plot()->setWindowSeconds(0);
        ui::StallMonitor monitor;
        monitor.start();
        testsupport::BusyProbe busy;
        const char* series[] = {"RSS MB", "CPU cores", "throughput MB/s", "done MB"};
        std::vector<cs::Sample> batch;
        const int perSeries = 250000;
        for (int i = 0; i < perSeries; ++i)
            for (const char* s : series)
                batch.push_back({i * 0.001, s, double(i % 1000)});
        QTest::qWait(50);
        // What the plot had received at each replot: the steps are the ticks.
        std::vector<qint64> atReplot{doc.liveSamplesReceived()};
        connect(doc.plot(), &QCustomPlot::afterReplot, this, [&] { atReplot.push_back(doc.liveSamplesReceived()); });
        monitor.reset();
        busy.reset();
        doc.injectLiveSamples(batch);
        QTRY_COMPARE_WITH_TIMEOUT(doc.liveSamplesReceived(), qint64(batch.size()), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(atReplot.back(), qint64(batch.size()), 10000);
        disconnect(doc.plot(), &QCustomPlot::afterReplot, this, nullptr);
        qint64 largestStep = 0;
        int steps = 0;
        for (size_t k = 1; k < atReplot.size(); ++k) {
            largestStep = std::max(largestStep, atReplot[k] - atReplot[k - 1]);
            steps += atReplot[k] > atReplot[k - 1] ? 1 : 0;
        }
        QVERIFY2(largestStep <= qint64(ui::BenchmarkDocument::kMaxLiveSamplesPerTick),
                 qPrintable(QStringLiteral("one replot took %1 new samples").arg(largestStep)));
        QVERIFY(steps >= int(batch.size() / ui::BenchmarkDocument::kMaxLiveSamplesPerTick));
        for (const char* s : series)
            QCOMPARE(doc.plot()->pointCount(QString::fromLatin1(s)), perSeries);
        // A graph per series (no phases were sent) and the throughput's moving mean.
        QCOMPARE(doc.plot()->graphCountForSeries(), int(std::size(series)));
        QCOMPARE(doc.plot()->graphCount(), int(std::size(series)) + 1);
        // Dense graphs are drawn thin and aliased: antialiased 1.6 px lines
        // took 0.7-0.8 s a replot for a million points (docs/benchmarks/history.md).
        for (int g = 0; g < doc.plot()->graphCount(); ++g) {
            const QCPGraph* graph = doc.plot()->graph(g);
            QVERIFY(graph->adaptiveSampling());
            QVERIFY(!graph->antialiased());
            QVERIFY(graph->pen().widthF() <= 1.0);
        }
        reportStalls(monitor.longestStallMs(), busy, qPrintable(QStringLiteral("over %1 replots of a million points").arg(steps)));
    }
};

CACHESCOPE_TEST_MAIN(TestBenchView)
#include "tst_bench_view.moc"
