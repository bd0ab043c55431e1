#include "ui/charts/PlotTheme.h"

#include <QEvent>
#include <qcustomplot.h>

namespace ui {

PlotTheme::PlotTheme(QCustomPlot* plot) : QObject(plot), plot_(plot)
{
    plot->installEventFilter(this);
}

PlotTheme* PlotTheme::attach(QCustomPlot* plot)
{
    auto* theme = new PlotTheme(plot);
    apply(plot);
    return theme;
}

bool PlotTheme::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor PlotTheme::seriesColor(int index)
{
    // Tableau-like colours: distinct, readable on light and dark backgrounds.
    static const QColor colors[] = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0x59a14f), QColor(0xe15759),
                                    QColor(0xb07aa1), QColor(0x76b7b2), QColor(0xedc948), QColor(0x9c755f)};
    return colors[index % int(std::size(colors))];
}

static void styleAxis(QCPAxis* axis, const QColor& text, const QColor& line, const QColor& grid)
{
    axis->setBasePen(QPen(line));
    axis->setTickPen(QPen(line));
    axis->setSubTickPen(QPen(line));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setSubGridPen(Qt::NoPen);
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

void PlotTheme::apply(QCustomPlot* plot)
{
    const QPalette pal = plot->palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    QColor line = text;
    line.setAlpha(170);
    QColor grid = text;
    grid.setAlpha(isDark(pal) ? 60 : 45);

    plot->setBackground(QBrush(pal.color(QPalette::Window)));
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(QBrush(base));
        for (QCPAxis* axis : rect->axes())
            styleAxis(axis, text, line, grid);
    }
    if (plot->legend) {
        // A legend inside the axes needs a background; one in its own layout row does not.
        const bool inset = qobject_cast<QCPLayoutInset*>(plot->legend->layout()) != nullptr;
        plot->legend->setBrush(inset ? QBrush(base) : QBrush(Qt::NoBrush));
        if (plot->legend->borderPen().style() != Qt::NoPen)
            plot->legend->setBorderPen(QPen(line));
        plot->legend->setTextColor(text);
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(text);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

bool PlotTheme::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == plot_ && event->type() == QEvent::PaletteChange)
        apply(plot_);
    return QObject::eventFilter(watched, event);
}

} // namespace ui
