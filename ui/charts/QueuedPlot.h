// A QCustomPlot that replots on the next turn of the event loop after a
// resize, instead of inside the resize (QCustomPlot's own resizeEvent
// replots at once, rpQueuedRefresh). A chart resized by a layout change
// (a new minimum height, a tab shown, a splitter moved) then costs the turn
// that resized it nothing, and the resizes of one drag replot once. The
// benchmark view's summary chart replotted 10-13 ms inside the turn that
// showed it (issue 25). SamplePlot and SummaryChart are QueuedPlots.
#pragma once
#include <qcustomplot.h>

namespace ui {

class QueuedPlot : public QCustomPlot {
    Q_OBJECT
public:
    using QCustomPlot::QCustomPlot;

protected:
    void resizeEvent(QResizeEvent* event) override;
};

} // namespace ui
