#include "ui/bench/SamplesChart.h"

#include "core/bench/Bench.h"
#include "core/bench/SamplesCsv.h"
#include "core/util/File.h"
#include "ui/bench/SamplePlot.h"
#include "ui/bench/SummaryChart.h"
#include "ui/charts/ChartExport.h"

#include <QFile>

namespace ui {

bool readSamplesCsv(const QString& path, std::vector<cs::Sample>& out, QString* error)
{
    try {
        out = cs::readSamplesCsvFile(QFile::encodeName(path).toStdString());
        return true;
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
}

bool renderSamplesChart(const QString& csvPath, const QString& outPath, QString* error)
{
    std::vector<cs::Sample> samples;
    if (!readSamplesCsv(csvPath, samples, error))
        return false;
    SamplePlot plot;
    plot.resize(1000, 700);
    plot.addRun(samples, {}, 0, {});
    plot.refresh();
    return exportPlot(&plot, outPath, error, QSize(1000, 700));
}

} // namespace ui

namespace ui {

bool renderRunChart(const QString& jsonPath, const QString& outPath, QString* error)
{
    cs::BenchRun run;
    try {
        const std::string path = QFile::encodeName(jsonPath).toStdString();
        run = cs::runFromJson(cs::parseJson(cs::readWholeFile(path, size_t(1) << 30), path));
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
    SummaryChart chart;
    chart.resize(1100, 720);
    chart.setRuns({run});
    return exportPlot(&chart, outPath, error, QSize(1100, 720));
}

} // namespace ui
