#include "ui/actions/ReportChart.h"

#include "ui/charts/ChartExport.h"
#include "ui/charts/PlotTheme.h"

#include "core/util/Error.h"
#include "core/util/Json.h"
#include "core/util/Units.h"

#include <QDateTime>
#include <QFile>
#include <QFontMetrics>

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

namespace ui {

namespace {

using cs::entries::GroupFigure;
using cs::entries::RetentionReason;
using cs::entries::ServerReport;

constexpr int kTopGroups = 10;
// A panel's height: its axis and label, then this much per bar.
constexpr int kPanelBase = 48, kPerBar = 17;

QString size(uint64_t b)
{
    return QString::fromStdString(cs::formatSize(b));
}

QString shortened(const QString& s)
{
    return s.size() > 44 ? s.left(20) + QStringLiteral("…") + s.right(20) : s;
}

// Ticks in binary units (1, 2, 5 × KiB, MiB, ...), labelled as sizes, for
// bars whose values are bytes.
class ByteTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override
    {
        const double exact = range.size() / double(std::max(tickCount(), 1));
        if (exact <= 1)
            return 1;
        double unit = 1;
        while (exact / unit >= 1024)
            unit *= 1024;
        for (const double m : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0})
            if (m * unit >= exact)
                return m * unit;
        return 1024 * unit;
    }
    int getSubTickCount(double) override { return 0; }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override
    {
        return tick <= 0 ? QStringLiteral("0") : size(uint64_t(std::llround(tick)));
    }
};

struct Bar {
    QString label;
    uint64_t bytes = 0;
    uint64_t entries = 0;
};

// One panel of horizontal bars (bytes per label, the first on top), each
// with its size and entries printed at its end.
QCPAxisRect* barPanel(QCustomPlot* plot, QCPMarginGroup* margins, const QString& title, const std::vector<Bar>& bars,
                      int colour, const QFont& small)
{
    auto* rect = new QCPAxisRect(plot);
    plot->plotLayout()->addElement(plot->plotLayout()->rowCount(), 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    const int row = plot->plotLayout()->rowCount() - 1;
    rect->setMinimumSize(0, kPanelBase + kPerBar * int(bars.size()));
    // Panels share the height by their bars, so a bar is as thick in each.
    plot->plotLayout()->setRowStretchFactor(row, double(std::max<size_t>(bars.size(), 2)));
    QCPAxis* keys = rect->axis(QCPAxis::atLeft);
    QCPAxis* values = rect->axis(QCPAxis::atBottom);
    auto* b = new QCPBars(keys, values);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int n = int(bars.size());
    uint64_t top = 0;
    const QColor text = plot->palette().color(QPalette::Text);
    for (int i = 0; i < n; ++i) {
        const double key = n - i;   // the first bar on top
        b->addData(key, double(bars[size_t(i)].bytes));
        ticker->addTick(key, shortened(bars[size_t(i)].label));
        top = std::max(top, bars[size_t(i)].bytes);
        auto* figure = new QCPItemText(plot);
        figure->setClipToAxisRect(false);
        figure->position->setAxes(values, keys);
        figure->position->setCoords(double(bars[size_t(i)].bytes), key);
        figure->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        figure->setPadding(QMargins(4, 0, 0, 0));
        figure->setFont(small);
        figure->setColor(text);
        figure->setText(QStringLiteral("%1 · %2 %3")
                            .arg(size(bars[size_t(i)].bytes))
                            .arg(bars[size_t(i)].entries)
                            .arg(bars[size_t(i)].entries == 1 ? QStringLiteral("entry") : QStringLiteral("entries")));
    }
    b->setWidth(0.7);
    const QColor c = PlotTheme::seriesColor(colour);
    b->setPen(QPen(c.darker(120)));
    b->setBrush(c);
    b->setName(title);
    keys->setTicker(ticker);
    keys->setRange(0.3, std::max(n, 1) + 0.7);
    keys->setTickLength(0, 0);
    keys->grid()->setVisible(false);
    values->setTicker(QSharedPointer<ByteTicker>::create());
    values->setLabel(title);
    // Room on the right for the longest figure printed at a bar's end.
    values->setRange(0, top > 0 ? double(top) * 1.3 : 1024);
    return rect;
}

std::vector<Bar> groupBars(const std::vector<GroupFigure>& gs, const QString& empty)
{
    std::vector<Bar> out;
    for (size_t i = 0; i < gs.size() && int(i) < kTopGroups; ++i)
        out.push_back({gs[i].name.empty() ? empty : QString::fromStdString(gs[i].name), gs[i].bytes, gs[i].entries});
    if (out.empty())
        out.push_back({QStringLiteral("(no entries)"), 0, 0});
    return out;
}

QString topOf(const char* what, size_t n)
{
    return n > size_t(kTopGroups) ? QStringLiteral("Bytes by %1, the %2 largest of %3").arg(QLatin1String(what)).arg(kTopGroups).arg(n)
                                  : QStringLiteral("Bytes by %1").arg(QLatin1String(what));
}

// Lines of at most width characters, broken at spaces: a caption line as
// long as a sentence would make the plot (QCPTextElement sizes itself by its
// longest line) wider than the tab.
QString wrapped(const QString& text, int width)
{
    QStringList out;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString current;
        for (const QString& word : line.split(QLatin1Char(' '))) {
            if (!current.isEmpty() && current.size() + 1 + word.size() > width) {
                out << current;
                current = QStringLiteral("    ") + word;   // a continued line is indented
            } else {
                current += (current.isEmpty() ? QString() : QStringLiteral(" ")) + word;
            }
        }
        out << current;
    }
    return out.join(QLatin1Char('\n'));
}

} // namespace

QString pastRetentionSummary(const ServerReport& r)
{
    const auto never = int(RetentionReason::NeverDownloaded), awaiting = int(RetentionReason::AwaitingCleanup);
    QString t = QStringLiteral("Past a retention of %1 days: %2 %3 (%4)")
                    .arg(r.retentionDays)
                    .arg(r.pastRetentionEntries)
                    .arg(r.pastRetentionEntries == 1 ? QStringLiteral("entry") : QStringLiteral("entries"))
                    .arg(size(r.pastRetentionBytes));
    if (r.pastRetentionEntries == 0)
        return t + QStringLiteral(".");
    QStringList why;
    if (r.pastRetentionByReason[never])
        why << QStringLiteral("%1 never downloaded (%2), which the server's cleanup never deletes")
                   .arg(r.pastRetentionByReason[never])
                   .arg(size(r.pastRetentionBytesByReason[never]));
    if (r.pastRetentionByReason[awaiting])
        why << QStringLiteral("%1 awaiting the cleanup's daily run (%2)")
                   .arg(r.pastRetentionByReason[awaiting])
                   .arg(size(r.pastRetentionBytesByReason[awaiting]));
    t += QStringLiteral(": ") + why.join(QStringLiteral("; "));
    t += QStringLiteral("; the oldest %1 of %2 listed.").arg(r.pastRetention.size()).arg(r.pastRetentionEntries);
    return t;
}

QString serverReportCaption(const ServerReport& r)
{
    QStringList lines;
    lines << pastRetentionSummary(r);
    lines << QStringLiteral("Health: %1 orphan folders (%2), %3 rows whose objects are missing, %4 unfinished uploads "
                            "(%5), %6 merges started and not finished (%7 past the server's 15-minute reset).")
                 .arg(r.orphanFolders)
                 .arg(size(r.orphanBytes))
                 .arg(r.missingObjects)
                 .arg(r.unfinishedUploads)
                 .arg(size(r.unfinishedUploadBytes))
                 .arg(r.unfinishedMerges)
                 .arg(r.stalledMerges);
    if (r.formats) {
        QStringList parts;
        for (const auto& [name, bytes] : *r.formats)
            parts << QString::fromStdString(name) + QStringLiteral(" ") + size(bytes);
        lines << QStringLiteral("Compression: %1; %2 restore serially (one frame, or frames without a declared size).")
                     .arg(parts.isEmpty() ? QStringLiteral("no blobs") : parts.join(QStringLiteral(", ")),
                          size(r.serialBytes.value_or(0)));
    } else {
        lines << QStringLiteral("Compression: %1.").arg(QString::fromStdString(r.compressionNote));
    }
    if (r.repetitionUnique) {
        QString rep = QStringLiteral("Repetition: a native store would keep about %1 (± %2) of %3 decoded.")
                          .arg(size(*r.repetitionUnique), size(r.repetitionError.value_or(0)),
                               size(r.repetitionTotal.value_or(0)));
        if (!r.repetitionNote.empty())
            rep += QStringLiteral(" ") + QString::fromStdString(r.repetitionNote) + QStringLiteral(".");
        lines << rep;
    } else {
        lines << QStringLiteral("Repetition: %1.").arg(QString::fromStdString(r.repetitionNote));
    }
    QString index = QStringLiteral("Size index: %1, %2 rows and %3 folders read in %4 s")
                        .arg(r.index.full ? QStringLiteral("full scan") : QStringLiteral("rescan"))
                        .arg(r.index.rowsRead)
                        .arg(r.index.foldersListed)
                        .arg(r.index.seconds, 0, 'f', 2);
    if (r.nowMs > 0)
        index += QStringLiteral("; report of %1").arg(QDateTime::fromMSecsSinceEpoch(r.nowMs).toString(
                     QStringLiteral("yyyy-MM-dd HH:mm")));
    lines << index + QStringLiteral(".");
    return lines.join(QLatin1Char('\n'));
}

void drawServerReport(QCustomPlot* plot, const ServerReport& r)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->plotLayout()->clear();
    plot->legend = nullptr;
    QFont titleFont = plot->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    QFont small = plot->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    auto* title = new QCPTextElement(
        plot,
        QStringLiteral("Cache server: %1 entries, %2 · %3 never downloaded · %4 past %5 days")
            .arg(r.entries)
            .arg(size(r.bytes))
            .arg(size(r.neverDownloadedBytes))
            .arg(size(r.pastRetentionBytes))
            .arg(r.retentionDays),
        titleFont);
    plot->plotLayout()->addElement(0, 0, title);
    auto* margins = new QCPMarginGroup(plot);

    barPanel(plot, margins, topOf("key family", r.families.size()), groupBars(r.families, QStringLiteral("(only hex)")), 0,
             small);
    barPanel(plot, margins, topOf("scope", r.scopes.size()), groupBars(r.scopes, QStringLiteral("(no scope)")), 1, small);

    std::vector<Bar> age;
    for (const auto& b : r.age)
        age.push_back({b.toDays ? QStringLiteral("%1-%2 days").arg(b.fromDays).arg(*b.toDays)
                                : QStringLiteral("%1+ days").arg(b.fromDays),
                       b.bytes, b.entries});
    age.push_back({QStringLiteral("never downloaded"), r.neverDownloadedBytes, r.neverDownloadedEntries});
    barPanel(plot, margins, QStringLiteral("Bytes by time since the last download"), age, 2, small);

    const auto never = int(RetentionReason::NeverDownloaded), awaiting = int(RetentionReason::AwaitingCleanup);
    barPanel(plot, margins, QStringLiteral("Bytes past a retention of %1 days, by why they are still there").arg(r.retentionDays),
             {{QStringLiteral("never downloaded"), r.pastRetentionBytesByReason[never], r.pastRetentionByReason[never]},
              {QStringLiteral("awaiting cleanup"), r.pastRetentionBytesByReason[awaiting],
               r.pastRetentionByReason[awaiting]}},
             3, small);

    const QString caption = wrapped(serverReportCaption(r), 130);
    auto* captionText = new QCPTextElement(plot, caption, small);
    captionText->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    captionText->setMargins(QMargins(10, 6, 10, 8));
    plot->plotLayout()->addElement(plot->plotLayout()->rowCount(), 0, captionText);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->plotLayout()->setRowStretchFactor(plot->plotLayout()->rowCount() - 1, 0.001);
    // The panels at their minimum, the title and the caption's lines:
    // squeezed below that, QCustomPlot overlaps them.
    const int lines = int(caption.count(QLatin1Char('\n'))) + 2;
    int panels = 0;
    for (QCPAxisRect* rect : plot->axisRects())
        panels += rect->minimumSize().height() + 12;
    plot->setMinimumHeight(panels + 2 * QFontMetrics(titleFont).lineSpacing() + lines * QFontMetrics(small).lineSpacing());
    PlotTheme::apply(plot);
    plot->replot();
}

bool renderServerReport(const QString& jsonPath, const QString& outPath, QString* error)
{
    QFile f(jsonPath);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = jsonPath + QStringLiteral(": cannot read the report (") + f.errorString() + QStringLiteral(")");
        return false;
    }
    const QByteArray bytes = f.readAll();
    ServerReport r;
    try {
        r = cs::entries::serverReportFromJson(
            cs::parseJson(std::string_view(bytes.constData(), size_t(bytes.size())), jsonPath.toStdString()),
            jsonPath.toStdString());
    } catch (const cs::Error& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    QCustomPlot plot;
    PlotTheme::attach(&plot);
    plot.resize(kReportImageWidth, kReportImageHeight);
    drawServerReport(&plot, r);
    return exportPlot(&plot, outPath, error, QSize(kReportImageWidth, kReportImageHeight));
}

} // namespace ui
