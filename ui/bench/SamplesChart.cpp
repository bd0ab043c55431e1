#include "ui/bench/SamplesChart.h"

#include "core/bench/Bench.h"
#include "ui/bench/SamplePlot.h"
#include "ui/charts/ChartExport.h"

#include <QFile>
#include <QTextStream>

namespace ui {

bool readSamplesCsv(const QString& path, std::vector<cs::Sample>& out, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot read: %2").arg(path, f.errorString());
        return false;
    }
    QTextStream in(&f);
    const QString header = in.readLine();
    if (header != QLatin1String("t,series,value")) {
        *error = QStringLiteral("%1: line 1 is not the header t,series,value").arg(path);
        return false;
    }
    int line = 1;
    while (!in.atEnd()) {
        const QString l = in.readLine();
        ++line;
        if (l.isEmpty())
            continue;
        // t,"series",value: the series is quoted and may hold commas.
        const int firstComma = l.indexOf(QLatin1Char(','));
        const int lastComma = l.lastIndexOf(QLatin1Char(','));
        bool okT = false, okV = false;
        cs::Sample s;
        if (firstComma > 0 && lastComma > firstComma) {
            s.t = l.left(firstComma).toDouble(&okT);
            s.value = l.mid(lastComma + 1).toDouble(&okV);
            QString series = l.mid(firstComma + 1, lastComma - firstComma - 1);
            if (series.size() >= 2 && series.startsWith(QLatin1Char('"')) && series.endsWith(QLatin1Char('"')))
                series = series.mid(1, series.size() - 2);
            s.series = series.toStdString();
        }
        if (!okT || !okV) {
            *error = QStringLiteral("%1: line %2 is not t,series,value").arg(path).arg(line);
            return false;
        }
        out.push_back(std::move(s));
    }
    return true;
}

bool renderSamplesChart(const QString& csvPath, const QString& outPath, QString* error)
{
    std::vector<cs::Sample> samples;
    if (!readSamplesCsv(csvPath, samples, error))
        return false;
    SamplePlot plot;
    plot.resize(1000, 700);
    plot.addRun(samples, 0, {});
    plot.refresh();
    return exportPlot(&plot, outPath, error, QSize(1000, 700));
}

} // namespace ui
