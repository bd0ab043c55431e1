#include "ui/bench/SummaryChart.h"

#include "ui/charts/PlotTheme.h"

#include <QDateTime>
#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

const cs::Comparison* findComparison(const cs::BenchRun& run, const std::string& name)
{
    for (const auto& c : run.result.comparisons)
        if (c.name == name)
            return &c;
    return nullptr;
}

QString betterText(const cs::Comparison& c)
{
    // Within half a percent (what the printed ratio, 1.00x, can tell) is even.
    if (c.reference <= 0 || std::abs(c.ratio - 1) < 0.005)
        return QObject::tr("even");
    const bool oursBetter = c.better == "higher" ? c.ratio > 1 : c.ratio < 1;
    return oursBetter ? QObject::tr("ours better") : QObject::tr("ours worse");
}

QString figure(double v)
{
    return QString::number(v, 'f', std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2);
}

} // namespace

QColor SummaryChart::oursColor(int run)
{
    return run == 0 ? PlotTheme::seriesColor(0) : PlotTheme::seriesColor(0).lighter(150);
}

QColor SummaryChart::referenceColor(int run)
{
    return run == 0 ? PlotTheme::seriesColor(1) : PlotTheme::seriesColor(1).lighter(140);
}

QString SummaryChart::ratioText(double ratio)
{
    return QString::number(ratio, 'f', ratio >= 10 ? 1 : 2) + QStringLiteral("×");
}

QString SummaryChart::pairName(const cs::Comparison& c)
{
    QString name = q(c.name);
    for (const QString& tail : {QStringLiteral(" ") + q(c.unit), QStringLiteral(" peak RSS"), QStringLiteral(" wall")})
        if (name.endsWith(tail) && name.size() > tail.size()) {
            name.chop(tail.size());
            break;
        }
    return name;
}

QString SummaryChart::captionOf(const cs::BenchRun& run)
{
    QStringList params;
    for (const auto& [k, v] : run.params)
        if (!v.empty())
            params << q(k) + QLatin1Char('=') + q(v);
    const QString date = QDateTime::fromMSecsSinceEpoch(qint64(run.started * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    return tr("scenario %1 (run %2, %3): %4").arg(q(run.scenario)).arg(run.id).arg(date, params.join(QLatin1Char(' '))) +
           QLatin1Char('\n') + tr("machine: %1; cachescope %2").arg(q(run.machine.describe()), q(run.version));
}

SummaryChart::SummaryChart(QWidget* parent) : QueuedPlot(parent)
{
    setMinimumHeight(240);
    plotLayout()->clear();
    legend = nullptr;
    PlotTheme::attach(this);
    showMessage(tr("The summary of a run appears here when it ends, or when you show a run of the history."));
}

void SummaryChart::showMessage(const QString& text)
{
    auto* t = new QCPTextElement(this, text);
    t->setMinimumSize(0, 60);
    plotLayout()->addElement(plotLayout()->rowCount(), 0, t);
    PlotTheme::apply(this);
}

void SummaryChart::setRuns(const std::vector<cs::BenchRun>& runs)
{
    clearPlottables();
    clearItems();
    plotLayout()->clear();
    legend = nullptr;
    pairs_ = 0;
    pairLabels_.clear();
    ratioLabels_.clear();
    units_.clear();
    caption_.clear();
    setMinimumHeight(240);
    if (runs.empty()) {
        showMessage(tr("No run shown."));
        replot(rpQueuedReplot);
        return;
    }
    const cs::BenchRun& a = runs[0];
    const bool two = runs.size() > 1;
    QFont titleFont = font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    const QString title = two ? tr("%1: ours beside the reference tool, run %2 (A) and run %3 (B)")
                                    .arg(q(a.scenario)).arg(a.id).arg(runs[1].id)
                              : tr("%1: ours beside the reference tool, per phase").arg(q(a.scenario));
    plotLayout()->addElement(0, 0, new QCPTextElement(this, title, titleFont));

    // One panel per unit, in the order the comparisons come.
    for (const auto& c : a.result.comparisons)
        if (!units_.contains(q(c.unit)))
            units_ << q(c.unit);
    if (units_.isEmpty()) {
        const cs::ResultRow* why = a.result.find("comparisons");
        showMessage(why ? tr("Comparisons: %1").arg(q(why->text))
                        : tr("This run has no comparisons (it ran before they were measured, or it failed)."));
    }
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    QCPMarginGroup* margins = new QCPMarginGroup(this);
    QList<QCPBars*> legendBars;
    for (const QString& unit : std::as_const(units_)) {
        auto* rect = new QCPAxisRect(this);
        plotLayout()->addElement(plotLayout()->rowCount(), 0, rect);
        rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        const std::string better = cs::betterDirection(unit.toStdString());
        y->setLabel(unit + QStringLiteral(", ") + (better == "higher" ? tr("higher is better") : tr("lower is better")));
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        std::vector<const cs::Comparison*> here;
        for (const auto& c : a.result.comparisons)
            if (q(c.unit) == unit)
                here.push_back(&c);
        const double slot = two ? 0.19 : 0.34;
        std::vector<QCPBars*> bars;   // run * 2 + (0 ours, 1 reference)
        for (size_t r = 0; r < runs.size() && r < 2; ++r)
            for (int k = 0; k < 2; ++k) {
                auto* b = new QCPBars(x, y);
                b->setWidth(slot * 0.92);
                b->setPen(Qt::NoPen);
                b->setBrush(k == 0 ? oursColor(int(r)) : referenceColor(int(r)));
                const QString who = k == 0 ? tr("ours (cachescope)") : tr("reference tool");
                b->setName(two ? QStringLiteral("%1, %2 run %3").arg(who, r == 0 ? QStringLiteral("A") : QStringLiteral("B"))
                                     .arg(runs[r].id)
                               : who);
                bars.push_back(b);
                if (legendBars.size() < int(runs.size() * 2))
                    legendBars << b;
                else
                    b->removeFromLegend();
            }
        double top = 0;
        for (size_t i = 0; i < here.size(); ++i) {
            const double center = double(i + 1);
            ticker->addTick(center, pairName(*here[i]) + QStringLiteral("\n") + tr("vs %1").arg(q(here[i]->referenceTool)));
            pairLabels_ << pairName(*here[i]);
            for (size_t r = 0; r < runs.size() && r < 2; ++r) {
                const cs::Comparison* c = r == 0 ? here[i] : findComparison(runs[r], here[i]->name);
                if (!c)
                    continue;
                const double left = two ? center - 2 * slot + slot * (0.5 + 2.0 * double(r)) : center - slot / 2;
                bars[r * 2]->addData(left, c->ours);
                bars[r * 2 + 1]->addData(left + slot, c->reference);
                ++pairs_;
                QString label = ratioText(c->ratio) + QLatin1Char('\n') + betterText(*c);
                if (r == 1 && here[i]->ours != 0)
                    label += QLatin1Char('\n') + tr("ours %1%2 %").arg(c->ours >= here[i]->ours ? QStringLiteral("+") : QString())
                                                     .arg((c->ours / here[i]->ours - 1) * 100, 0, 'f', 1);
                ratioLabels_ << label.section(QLatin1Char('\n'), 0, 0);
                auto* text = new QCPItemText(this);
                text->setClipToAxisRect(false);
                text->position->setAxes(x, y);
                text->position->setCoords(left + slot / 2, std::max(c->ours, c->reference));
                text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
                text->setTextAlignment(Qt::AlignCenter);
                text->setFont(small);
                text->setColor(palette().color(QPalette::Text));
                text->setText(label);
                auto* values = new QCPItemText(this);
                values->setClipToAxisRect(false);
                values->position->setAxes(x, y);
                values->position->setCoords(left + slot / 2, 0);
                values->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
                values->setFont(small);
                values->setColor(palette().color(QPalette::Text));
                values->setText(figure(c->ours) + QStringLiteral(" | ") + figure(c->reference));
                top = std::max(top, std::max(c->ours, c->reference));
            }
        }
        x->setTicker(ticker);
        x->setRange(0.4, double(here.size()) + 0.6);
        x->setTickLength(0, 3);
        x->grid()->setVisible(false);
        y->setRange(0, top > 0 ? top * 1.45 : 1);
        y->setPadding(6);
        rect->setMinimumSize(0, 150);
    }
    if (!legendBars.isEmpty()) {
        legend = new QCPLegend;
        auto* row = new QCPLayoutGrid;
        plotLayout()->addElement(plotLayout()->rowCount(), 0, row);
        row->addElement(0, 0, legend);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        legend->setBorderPen(Qt::NoPen);
        legend->setFont(small);
        for (QCPBars* b : std::as_const(legendBars))
            b->addToLegend(legend);
        plotLayout()->setRowStretchFactor(plotLayout()->rowCount() - 1, 0.001);
    }
    QStringList captions;
    for (size_t r = 0; r < runs.size() && r < 2; ++r)
        captions << (two ? (r == 0 ? QStringLiteral("A: ") : QStringLiteral("B: ")) : QString()) + captionOf(runs[r]);
    caption_ = tr("Bars: the figure of ours and of the reference tool in the same run; printed: ours / reference.") +
               QLatin1Char('\n') + captions.join(QLatin1Char('\n'));
    auto* captionText = new QCPTextElement(this, caption_, small);
    captionText->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    plotLayout()->addElement(plotLayout()->rowCount(), 0, captionText);
    plotLayout()->setRowStretchFactor(0, 0.001);
    plotLayout()->setRowStretchFactor(plotLayout()->rowCount() - 1, 0.001);
    // Room for every panel at its minimum with its margins (the inner rect
    // is 150 px; below it come two lines of tick labels), the title, the
    // legend and the caption's lines: squeezed below that, QCustomPlot
    // overlaps them (the legend covered the caption's first line at 900 px).
    int panels = 0;
    for (int i = 0; i < plotLayout()->elementCount(); ++i)
        panels += qobject_cast<QCPAxisRect*>(plotLayout()->elementAt(i)) != nullptr;
    const int captionLines = int(caption_.count(QLatin1Char('\n'))) + 1;
    const int line = QFontMetrics(font()).lineSpacing();
    const int smallLine = QFontMetrics(small).lineSpacing();
    const int panel = 150 + 2 * line + 24;
    const int titleRow = QFontMetrics(titleFont).lineSpacing() + 12;
    const int legendRow = legendBars.isEmpty() ? 0 : (two ? 2 : 1) * smallLine + 16;
    setMinimumHeight(std::max(240, panels * panel + titleRow + legendRow + captionLines * smallLine + 12));
    PlotTheme::apply(this);
    replot(rpQueuedReplot);
}

} // namespace ui
