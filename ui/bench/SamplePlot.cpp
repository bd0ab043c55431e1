#include "ui/bench/SamplePlot.h"

#include "core/bench/Bench.h"
#include "ui/charts/PlotTheme.h"

#include <algorithm>
#include <string>
#include <utility>

namespace ui {

SamplePlot::SamplePlot(QWidget* parent) : QCustomPlot(parent)
{
    setMinimumHeight(240);
    setNoAntialiasingOnDrag(true);
    setPlottingHint(QCP::phCacheLabels, true);
    margins_ = new QCPMarginGroup(this);
    // The default rect becomes the first unit's rect when a sample arrives.
    plotLayout()->clear();
    legend = nullptr;
    PlotTheme::attach(this);
    showPlaceholder();
}

void SamplePlot::showPlaceholder()
{
    auto* text = new QCPTextElement(this, tr("Run a scenario or pick one from the history: its samples appear here."));
    plotLayout()->addElement(0, 0, text);
    placeholder_ = text;
    PlotTheme::apply(this);
}

void SamplePlot::clearAll()
{
    clearGraphs();
    plotLayout()->clear();  // deletes the rects, their legends and the placeholder
    placeholder_ = nullptr;
    graphs_.clear();
    colorIndex_.clear();
    rects_.clear();
    legends_.clear();
    runLabels_.clear();
    newest_ = 0;
    appended_ = 0;
    showPlaceholder();
    replot(rpQueuedReplot);
}

QCPAxisRect* SamplePlot::rectForUnit(const QString& unit)
{
    auto it = rects_.find(unit);
    if (it != rects_.end())
        return it.value();
    if (placeholder_) {
        plotLayout()->remove(placeholder_);
        plotLayout()->simplify();
        placeholder_ = nullptr;
    }
    auto* rect = new QCPAxisRect(this);
    plotLayout()->addElement(rects_.isEmpty() ? 0 : plotLayout()->rowCount(), 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins_);
    rect->axis(QCPAxis::atBottom)->setLabel(tr("seconds"));
    rect->axis(QCPAxis::atLeft)->setLabel(unit.isEmpty() ? tr("count") : unit);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setRangeDrag(Qt::Horizontal);
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignLeft);
    legend->setLayer(QStringLiteral("legend"));
    legend->setIconSize(16, 8);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    legend->setFont(f);
    legends_.insert(rect, legend);
    rects_.insert(unit, rect);
    PlotTheme::apply(this);
    styleLegends();
    return rect;
}

QCPGraph* SamplePlot::graphFor(const QString& series, int run)
{
    const QString key = QString::number(run) + QLatin1Char('\n') + series;
    auto it = graphs_.find(key);
    if (it != graphs_.end())
        return it.value();
    QCPAxisRect* rect = rectForUnit(QString::fromStdString(cs::seriesUnit(series.toStdString())));
    auto* g = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    if (!colorIndex_.contains(series))
        colorIndex_.insert(series, int(colorIndex_.size()));
    QPen pen(PlotTheme::seriesColor(colorIndex_.value(series)), 1.6);
    if (run > 0)
        pen.setStyle(Qt::DashLine);
    g->setPen(pen);
    g->setAdaptiveSampling(true);
    const QString label = runLabels_.value(run);
    g->setName(label.isEmpty() ? series : series + QStringLiteral(" (") + label + QLatin1Char(')'));
    g->removeFromLegend();
    g->addToLegend(legends_.value(rect));
    graphs_.insert(key, g);
    return g;
}

void SamplePlot::append(const cs::Sample& s, int run)
{
    graphFor(QString::fromStdString(s.series), run)->data()->add(QCPGraphData(s.t, s.value));
    newest_ = std::max(newest_, s.t);
    ++appended_;
}

void SamplePlot::append(const std::vector<cs::Sample>& samples, int run)
{
    // Group per series so each graph gets one sorted bulk add. A run has a
    // handful of series, so a linear search on the std::string beats a
    // QString conversion and hash per sample (a million live samples spent
    // half the GUI thread's time there).
    std::vector<std::pair<const std::string*, QVector<QCPGraphData>>> bySeries;
    for (const auto& s : samples) {
        auto it = std::find_if(bySeries.begin(), bySeries.end(), [&](const auto& g) { return *g.first == s.series; });
        if (it == bySeries.end())
            it = bySeries.insert(bySeries.end(), {&s.series, {}});
        it->second.append(QCPGraphData(s.t, s.value));
        newest_ = std::max(newest_, s.t);
    }
    for (auto& [series, data] : bySeries)
        graphFor(QString::fromStdString(*series), run)->data()->add(data, true);
    appended_ += qint64(samples.size());
}

void SamplePlot::addRun(const std::vector<cs::Sample>& samples, int run, const QString& label)
{
    runLabels_.insert(run, label);
    append(samples, run);
}

void SamplePlot::refresh()
{
    // Dense graphs: antialiased thick polylines cost the raster engine far
    // more than the data does, so above a few thousand points per graph draw
    // thin, aliased lines (adaptive sampling already bounds the point count).
    for (QCPGraph* g : std::as_const(graphs_)) {
        const bool dense = g->data()->size() > kDensePoints;
        if (g->antialiased() == dense) {
            g->setAntialiased(!dense);
            QPen pen = g->pen();
            pen.setWidthF(dense ? 1.0 : 1.6);
            g->setPen(pen);
        }
    }
    const double from = window_ > 0 ? std::max(0.0, newest_ - window_) : 0.0;
    if (window_ > 0)
        for (QCPGraph* g : std::as_const(graphs_))
            g->data()->removeBefore(from);
    for (QCPAxisRect* rect : std::as_const(rects_)) {
        rect->axis(QCPAxis::atBottom)->setRange(from, std::max(from + 1.0, newest_));
        bool first = true;
        for (QCPGraph* g : rect->graphs()) {
            g->rescaleValueAxis(!first, true);
            first = false;
        }
        QCPRange y = rect->axis(QCPAxis::atLeft)->range();
        if (y.lower > 0)
            y.lower = 0;
        if (y.upper <= y.lower)
            y.upper = y.lower + 1;
        rect->axis(QCPAxis::atLeft)->setRange(y.lower, y.upper * 1.08);
    }
    replot(rpQueuedReplot);
}

int SamplePlot::pointCount(const QString& series, int run) const
{
    auto it = graphs_.find(QString::number(run) + QLatin1Char('\n') + series);
    return it == graphs_.end() ? -1 : it.value()->data()->size();
}

void SamplePlot::styleLegends()
{
    const QPalette pal = palette();
    QColor line = pal.color(QPalette::Text);
    line.setAlpha(120);
    QColor bg = pal.color(QPalette::Base);
    bg.setAlpha(220);
    for (QCPLegend* l : std::as_const(legends_)) {
        l->setBrush(QBrush(bg));
        l->setBorderPen(QPen(line));
        l->setTextColor(pal.color(QPalette::Text));
    }
}

void SamplePlot::changeEvent(QEvent* event)
{
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        styleLegends();
        replot(rpQueuedReplot);
    }
}

} // namespace ui
