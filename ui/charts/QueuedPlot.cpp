#include "ui/charts/QueuedPlot.h"

namespace ui {

void QueuedPlot::resizeEvent(QResizeEvent*)
{
    setViewport(rect());
    replot(rpQueuedReplot);
}

} // namespace ui
