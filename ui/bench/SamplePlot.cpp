#include "ui/bench/SamplePlot.h"

#include "ui/charts/PlotTheme.h"

#include <algorithm>
#include <string>
#include <utility>

namespace ui {

namespace {

QColor bandColor(cs::PhaseRole role)
{
    switch (role) {
    case cs::PhaseRole::Ours: {
        QColor c = PlotTheme::seriesColor(0);
        c.setAlpha(34);
        return c;
    }
    case cs::PhaseRole::Reference: {
        QColor c = PlotTheme::seriesColor(1);
        c.setAlpha(40);
        return c;
    }
    case cs::PhaseRole::Setup: break;
    }
    return QColor(128, 128, 128, 18);
}

bool isThroughput(const QString& series) { return series.endsWith(QLatin1String("MB/s")); }

} // namespace

QString SamplePlot::panelOf(const QString& series)
{
    const QString unit = QString::fromStdString(cs::seriesUnit(series.toStdString()));
    if (series == QLatin1String("done MB"))
        return tr("bytes done (MB)");
    if (series.endsWith(QLatin1String("RSS MB")))
        return tr("RSS (MB)");
    if (unit == QLatin1String("cores"))
        return tr("CPU (cores)");
    if (unit == QLatin1String("MB/s"))
        return tr("throughput (MB/s)");
    return unit.isEmpty() ? tr("count") : unit;
}

SamplePlot::SamplePlot(QWidget* parent) : QueuedPlot(parent)
{
    setMinimumHeight(240);
    setNoAntialiasingOnDrag(true);
    setPlottingHint(QCP::phCacheLabels, true);
    addLayer(QStringLiteral("phases"), layer(QStringLiteral("grid")), QCustomPlot::limBelow);
    margins_ = new QCPMarginGroup(this);
    // The default rect becomes the first panel when a sample arrives.
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
    clearItems();
    plotLayout()->clear();  // deletes the rects, their legends and the placeholder
    placeholder_ = nullptr;
    graphs_.clear();
    smoothing_.clear();
    colorIndex_.clear();
    rects_.clear();
    panelOrder_.clear();
    legends_.clear();
    inLegend_.clear();
    runLabels_.clear();
    phases_.clear();
    bands_.clear();
    newest_ = 0;
    appended_ = 0;
    showPlaceholder();
    replot(rpQueuedReplot);
}

QString SamplePlot::keyOf(int run, int phase, const QString& series)
{
    return QString::number(run) + QLatin1Char('\n') + QString::number(phase) + QLatin1Char('\n') + series;
}

int SamplePlot::phaseOf(double t, int run) const
{
    const auto it = phases_.find(run);
    return it == phases_.end() ? -1 : cs::phaseAt(it.value(), t);
}

QCPAxisRect* SamplePlot::rectForPanel(const QString& panel)
{
    auto it = rects_.find(panel);
    if (it != rects_.end())
        return it.value();
    if (placeholder_) {
        plotLayout()->remove(placeholder_);
        plotLayout()->simplify();
        placeholder_ = nullptr;
    }
    auto* rect = new QCPAxisRect(this);
    // A new rect is made on the current layer ("main"), where its opaque
    // background would hide the phase bands (layer "phases", below "grid"):
    // it belongs on "background", as QCustomPlot's own default rect does.
    rect->setLayer(QStringLiteral("background"));
    plotLayout()->addElement(rects_.isEmpty() ? 0 : plotLayout()->rowCount(), 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins_);
    rect->axis(QCPAxis::atBottom)->setLabel(tr("seconds"));
    QString label = panel;
    if (panel == tr("throughput (MB/s)"))
        label += QStringLiteral("\n") + tr("%1 s moving mean").arg(kSmoothSeconds);   // the dashes say "mean N" themselves
    rect->axis(QCPAxis::atLeft)->setLabel(label);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setRangeDrag(Qt::Horizontal);
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    legend->setLayer(QStringLiteral("legend"));
    legend->setIconSize(16, 8);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    legend->setFont(f);
    legends_.insert(rect, legend);
    rects_.insert(panel, rect);
    panelOrder_ << panel;
    for (Band& band : bands_)
        addBandRect(band, rect);
    PlotTheme::apply(this);
    styleLegends();
    return rect;
}

QCPGraph* SamplePlot::graphFor(const QString& series, int phase, int run)
{
    const QString key = keyOf(run, phase, series);
    auto it = graphs_.find(key);
    if (it != graphs_.end())
        return it.value();
    QCPAxisRect* rect = rectForPanel(panelOf(series));
    auto* g = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    if (!colorIndex_.contains(series))
        colorIndex_.insert(series, int(colorIndex_.size()));
    QColor colour = PlotTheme::seriesColor(colorIndex_.value(series));
    if (isThroughput(series))
        colour.setAlpha(90);   // the sampled values, under their moving mean
    QPen pen(colour, isThroughput(series) ? 1.0 : 1.6);
    if (run > 0)
        pen.setStyle(Qt::DashLine);
    g->setPen(pen);
    g->setAdaptiveSampling(true);
    const QString label = runLabels_.value(run);
    const QString name = isThroughput(series) ? series + tr(" (sampled)") : series;
    g->setName(label.isEmpty() ? name : name + QStringLiteral(" (") + label + QLatin1Char(')'));
    g->removeFromLegend();
    const QString legendKey = QString::number(run) + QLatin1Char('\n') + series;
    if (!inLegend_.value(legendKey)) {
        g->addToLegend(legends_.value(rect));
        inLegend_.insert(legendKey, true);
    }
    graphs_.insert(key, g);
    return g;
}

SamplePlot::Smoothing& SamplePlot::smoothingFor(const QString& series, int phase, int run, QCPGraph* raw)
{
    const QString key = keyOf(run, phase, series);
    auto it = smoothing_.find(key);
    if (it != smoothing_.end())
        return it.value();
    Smoothing s;
    s.graph = addGraph(raw->keyAxis(), raw->valueAxis());
    QPen pen(PlotTheme::seriesColor(colorIndex_.value(series)), 2.0);
    if (run > 0)
        pen.setStyle(Qt::DashLine);
    s.graph->setPen(pen);
    s.graph->setAdaptiveSampling(true);
    s.graph->setName(tr("%1 s moving mean").arg(kSmoothSeconds));
    s.graph->removeFromLegend();
    const QString legendKey = QString::number(run) + QLatin1String("\nsmooth\n") + series;
    if (!inLegend_.value(legendKey)) {
        s.graph->addToLegend(legends_.value(raw->keyAxis()->axisRect()));
        inLegend_.insert(legendKey, true);
    }
    s.mean = new QCPItemLine(this);
    s.mean->setClipAxisRect(raw->keyAxis()->axisRect());
    for (QCPItemPosition* p : {s.mean->start, s.mean->end}) {
        p->setAxes(raw->keyAxis(), raw->valueAxis());
        p->setType(QCPItemPosition::ptPlotCoords);
    }
    QPen dash(PlotTheme::seriesColor(colorIndex_.value(series)).darker(130), 1.4, Qt::DashLine);
    s.mean->setPen(dash);
    s.meanText = new QCPItemText(this);
    s.meanText->setClipAxisRect(raw->keyAxis()->axisRect());
    s.meanText->position->setAxes(raw->keyAxis(), raw->valueAxis());
    s.meanText->position->setType(QCPItemPosition::ptPlotCoords);
    s.meanText->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    s.meanText->setColor(dash.color());
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.8);
    s.meanText->setFont(f);
    return smoothing_.insert(key, s).value();
}

void SamplePlot::smooth(Smoothing& s, double t, double value)
{
    if (s.count == 0)
        s.first = t;
    s.last = t;
    s.sum += value;
    ++s.count;
    s.window.emplace_back(t, value);
    s.windowSum += value;
    while (!s.window.empty() && s.window.front().first <= t - kSmoothSeconds) {
        s.windowSum -= s.window.front().second;
        s.window.pop_front();
    }
    s.graph->data()->add(QCPGraphData(t, s.windowSum / double(s.window.size())));
}

void SamplePlot::addBandRect(Band& band, QCPAxisRect* rect)
{
    auto* r = new QCPItemRect(this);
    r->setLayer(QStringLiteral("phases"));
    r->setClipAxisRect(rect);
    for (QCPItemPosition* p : {r->topLeft, r->bottomRight}) {
        p->setAxisRect(rect);
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    r->topLeft->setCoords(band.phase.start, 0);
    r->bottomRight->setCoords(band.phase.end, 1);
    r->setPen(Qt::NoPen);
    r->setBrush(bandColor(band.phase.role));
    r->setSelectable(false);
    band.rects.push_back(r);
    if (!band.label && rect == rects_.value(panelOrder_.value(0))) {
        band.label = new QCPItemText(this);
        band.label->setLayer(QStringLiteral("phases"));
        band.label->setClipAxisRect(rect);
        band.label->position->setAxisRect(rect);
        band.label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        band.label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        band.label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band.label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        band.label->setText(QString::fromStdString(band.phase.label));
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 0.8);
        band.label->setFont(f);
        band.label->setColor(band.phase.role == cs::PhaseRole::Setup ? palette().color(QPalette::PlaceholderText)
                                                                     : bandColor(band.phase.role).darker(300));
        band.label->setSelectable(false);
    }
}

void SamplePlot::setPhases(const std::vector<cs::Phase>& phases, int run)
{
    phases_[run] = phases;
    if (run != 0)
        return;
    for (size_t i = 0; i < phases.size(); ++i) {
        if (i >= bands_.size()) {
            bands_.push_back({{}, nullptr, phases[i]});
            for (const QString& panel : std::as_const(panelOrder_))
                addBandRect(bands_.back(), rects_.value(panel));
        }
        bands_[i].phase = phases[i];
    }
}

void SamplePlot::append(const cs::Sample& s, int run)
{
    append(std::vector<cs::Sample>{s}, run);
}

void SamplePlot::append(const std::vector<cs::Sample>& samples, int run)
{
    // Group per series and phase so each graph gets one sorted bulk add. A
    // run has a handful of series, so a linear search on the std::string
    // beats a QString conversion and hash per sample (a million live
    // samples spent half the GUI thread's time there).
    struct Group {
        const std::string* series;
        int phase;
        QVector<QCPGraphData> data;
    };
    std::vector<Group> groups;
    const bool phased = phases_.contains(run) && !phases_.value(run).empty();
    for (const auto& s : samples) {
        const int phase = phased ? phaseOf(s.t, run) : -1;
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const Group& g) { return g.phase == phase && *g.series == s.series; });
        if (it == groups.end())
            it = groups.insert(groups.end(), {&s.series, phase, {}});
        it->data.append(QCPGraphData(s.t, s.value));
        newest_ = std::max(newest_, s.t);
    }
    for (auto& g : groups) {
        const QString series = QString::fromStdString(*g.series);
        QCPGraph* graph = graphFor(series, g.phase, run);
        graph->data()->add(g.data, true);
        if (isThroughput(series)) {
            Smoothing& sm = smoothingFor(series, g.phase, run, graph);
            for (const QCPGraphData& d : std::as_const(g.data))
                smooth(sm, d.key, d.value);
        }
    }
    appended_ += qint64(samples.size());
}

void SamplePlot::addRun(const std::vector<cs::Sample>& samples, const std::vector<cs::Phase>& phases, int run,
                        const QString& label)
{
    runLabels_.insert(run, label);
    setPhases(phases, run);
    append(samples, run);
}

void SamplePlot::updateBands()
{
    const QCPAxisRect* top = rects_.value(panelOrder_.value(0));
    for (size_t i = 0; i < bands_.size(); ++i) {
        Band& b = bands_[i];
        // The running phase reaches the newest sample.
        const double end = i + 1 == bands_.size() && b.phase.end <= b.phase.start ? std::max(newest_, b.phase.start)
                                                                                    : b.phase.end;
        for (QCPItemRect* r : b.rects) {
            r->topLeft->setCoords(b.phase.start, 0);
            r->bottomRight->setCoords(end, 1);
        }
        if (b.label && top) {
            b.label->position->setCoords((b.phase.start + end) / 2, 0.02);
            const QCPAxis* x = top->axis(QCPAxis::atBottom);
            const double pixels = std::abs(x->coordToPixel(end) - x->coordToPixel(b.phase.start));
            const QFontMetrics fm(b.label->font());
            b.label->setVisible(pixels > fm.horizontalAdvance(b.label->text()) + 4);
        }
    }
}

void SamplePlot::updateMeans()
{
    for (auto it = smoothing_.begin(); it != smoothing_.end(); ++it) {
        Smoothing& s = it.value();
        if (s.count == 0)
            continue;
        const double mean = s.sum / double(s.count);
        // Across the phase's band when it has one, else across its samples.
        const QStringList parts = it.key().split(QLatin1Char('\n'));
        const int run = parts.value(0).toInt(), phase = parts.value(1).toInt();
        double from = s.first, to = s.last;
        const auto ph = phases_.find(run);
        if (phase >= 0 && ph != phases_.end() && size_t(phase) < ph.value().size()) {
            from = ph.value()[size_t(phase)].start;
            to = std::max(ph.value()[size_t(phase)].end, s.last);
        }
        s.mean->start->setCoords(from, mean);
        s.mean->end->setCoords(to, mean);
        s.meanText->position->setCoords((from + to) / 2, mean);
        s.meanText->setText(tr("mean %1").arg(mean, 0, 'f', mean >= 100 ? 0 : 1));
        const QCPAxis* x = s.graph->keyAxis();
        const QFontMetrics fm(s.meanText->font());
        s.meanText->setVisible(std::abs(x->coordToPixel(to) - x->coordToPixel(from)) >
                               fm.horizontalAdvance(s.meanText->text()) + 4);
    }
}

void SamplePlot::refresh()
{
    // Dense graphs: antialiased thick polylines cost the raster engine far
    // more than the data does, so above a few thousand points per graph draw
    // thin, aliased lines (adaptive sampling already bounds the point count).
    for (int i = 0; i < graphCount(); ++i) {
        QCPGraph* g = graph(i);
        const bool dense = g->data()->size() > kDensePoints;
        if (g->antialiased() == dense) {
            const bool smoothed = g->pen().widthF() > 1.8 || g->property("smoothed").toBool();
            g->setProperty("smoothed", smoothed);
            g->setAntialiased(!dense);
            QPen pen = g->pen();
            pen.setWidthF(dense ? 1.0 : smoothed ? 2.0 : 1.6);
            g->setPen(pen);
        }
    }
    const double from = window_ > 0 ? std::max(0.0, newest_ - window_) : 0.0;
    if (window_ > 0) {
        for (QCPGraph* g : std::as_const(graphs_))
            g->data()->removeBefore(from);
        for (const Smoothing& s : std::as_const(smoothing_))
            s.graph->data()->removeBefore(from);
    }
    for (QCPAxisRect* rect : std::as_const(rects_)) {
        rect->axis(QCPAxis::atBottom)->setRange(from, std::max(from + 1.0, newest_));
        bool first = true;
        for (QCPGraph* g : rect->graphs()) {
            if (g->data()->isEmpty())
                continue;
            g->rescaleValueAxis(!first, true);
            first = false;
        }
        QCPRange y = rect->axis(QCPAxis::atLeft)->range();
        if (y.lower > 0)
            y.lower = 0;
        if (y.upper <= y.lower)
            y.upper = y.lower + 1;
        // Room above the data for the phase labels and legend.
        rect->axis(QCPAxis::atLeft)->setRange(y.lower, y.upper * 1.25);
    }
    updateBands();
    updateMeans();
    replot(rpQueuedReplot);
}

int SamplePlot::pointCount(const QString& series, int run) const
{
    int n = -1;
    const QString prefix = QString::number(run) + QLatin1Char('\n');
    for (auto it = graphs_.begin(); it != graphs_.end(); ++it)
        if (it.key().startsWith(prefix) && it.key().section(QLatin1Char('\n'), 2) == series)
            n = std::max(n, 0) + it.value()->data()->size();
    return n;
}

int SamplePlot::phaseGraphCount(const QString& series, int run) const
{
    int n = 0;
    const QString prefix = QString::number(run) + QLatin1Char('\n');
    for (auto it = graphs_.begin(); it != graphs_.end(); ++it)
        if (it.key().startsWith(prefix) && it.key().section(QLatin1Char('\n'), 2) == series)
            ++n;
    return n;
}

QCPGraph* SamplePlot::graphOf(const QString& series, int phase, int run) const
{
    return graphs_.value(keyOf(run, phase, series), nullptr);
}

QCPGraph* SamplePlot::smoothedGraphOf(const QString& series, int phase, int run) const
{
    const auto it = smoothing_.find(keyOf(run, phase, series));
    return it == smoothing_.end() ? nullptr : it.value().graph;
}

QCPItemLine* SamplePlot::meanLineOf(const QString& series, int phase, int run) const
{
    const auto it = smoothing_.find(keyOf(run, phase, series));
    return it == smoothing_.end() ? nullptr : it.value().mean;
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
