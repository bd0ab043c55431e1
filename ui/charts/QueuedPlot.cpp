#include "ui/charts/QueuedPlot.h"

namespace ui {

QueuedPlot::QueuedPlot(QWidget* parent) : QCustomPlot(parent)
{
    setPlottingHint(QCP::phImmediateRefresh, false);
    if (QCPLayer* overlay = layer(QStringLiteral("overlay")))
        overlay->setMode(QCPLayer::lmLogical);
}

void QueuedPlot::resizeEvent(QResizeEvent*)
{
    setViewport(rect());
    replot(rpQueuedReplot);
}

} // namespace ui
