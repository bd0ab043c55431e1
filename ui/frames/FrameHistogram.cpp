#include "ui/frames/FrameHistogram.h"

#include "ui/charts/PlotTheme.h"
#include "ui/frames/FrameCategory.h"

#include <algorithm>
#include <array>
#include <bit>

namespace ui {

FrameHistogram::FrameHistogram(QWidget* parent) : QCustomPlot(parent)
{
    setMinimumHeight(180);
    xAxis->setLabel(tr("Compressed frame size (from)"));
    yAxis->setLabel(tr("Frames"));
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, new QCPTextElement(this, tr("Frame sizes"), QFont(font().family(), font().pointSize(), QFont::Bold)));
    // The legend goes in its own row under the axes, where it never hides a bar.
    legend->setVisible(true);
    legend->setFont(font());
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    axisRect()->insetLayout()->take(legend);
    auto* legendRow = new QCPLayoutGrid;
    plotLayout()->addElement(2, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
    auto counts = QSharedPointer<QCPAxisTickerFixed>::create();
    counts->setTickStep(1);
    counts->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);  // frame counts are whole numbers
    yAxis->setTicker(counts);
    PlotTheme::attach(this);
    setSizes({});
}

void FrameHistogram::setSizes(const std::array<FrameDigest::Buckets, kFrameCategoryCount>& sizes)
{
    clearPlottables();
    std::array<std::vector<double>, kFrameCategoryCount> counts;
    firstBucket_ = 64;
    lastBucket_ = -1;
    for (const auto& buckets : sizes)
        for (int b = 0; b < 64; ++b)
            if (buckets[size_t(b)]) {
                firstBucket_ = std::min(firstBucket_, b);
                lastBucket_ = std::max(lastBucket_, b);
            }
    if (lastBucket_ < 0)
        firstBucket_ = 0;
    const int n = std::max(0, lastBucket_ - firstBucket_ + 1);
    for (size_t c = 0; c < counts.size(); ++c) {
        counts[c].assign(size_t(n), 0.0);
        for (int i = 0; i < n; ++i)
            counts[c][size_t(i)] = double(sizes[c][size_t(firstBucket_ + i)]);
    }

    QVector<double> keys(n);
    for (int i = 0; i < n; ++i)
        keys[i] = firstBucket_ + i;

    QCPBars* below = nullptr;
    double maxStack = 0;
    std::vector<double> stack(size_t(n), 0.0);
    for (int c = 0; c < kFrameCategoryCount; ++c) {
        const auto& values = counts[size_t(c)];
        if (std::all_of(values.begin(), values.end(), [](double v) { return v == 0; }))
            continue;
        auto* bars = new QCPBars(xAxis, yAxis);
        bars->setName(frameCategoryName(FrameCategory(c)));
        const QColor color = frameCategoryColor(FrameCategory(c));
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(130)));
        bars->setWidth(0.8);
        // Only non-empty buckets: a zero-height bar would still draw its outline on top of the stack.
        QVector<double> k, v;
        for (int i = 0; i < n; ++i)
            if (values[size_t(i)] > 0) {
                k << keys[i];
                v << values[size_t(i)];
            }
        bars->setData(k, v, true);
        if (below)
            bars->moveAbove(below);
        below = bars;
        for (int i = 0; i < n; ++i) {
            stack[size_t(i)] += values[size_t(i)];
            maxStack = std::max(maxStack, stack[size_t(i)]);
        }
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // Label every bucket while they fit; otherwise every 2nd or 4th.
    const int step = n > 24 ? 4 : (n > 12 ? 2 : 1);
    for (int i = 0; i < n; i += step)
        ticker->addTick(firstBucket_ + i, sizeText(uint64_t(1) << (firstBucket_ + i)).replace(QLatin1String(".0 "), QLatin1String(" ")));
    xAxis->setTicker(ticker);
    xAxis->setTickLabelRotation(n > 8 ? 35 : 0);
    xAxis->setSubTicks(false);
    xAxis->setRange(firstBucket_ - 0.7, std::max(firstBucket_, lastBucket_) + 0.7);
    yAxis->setRange(0, std::max(1.0, maxStack * 1.12));
    legend->setVisible(plottableCount() > 0);
    replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ui
