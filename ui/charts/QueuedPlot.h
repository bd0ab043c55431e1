// A QCustomPlot whose replots never paint inside the turn that replots,
// for views that must keep each event-loop turn short (issue 25: the
// benchmark view's longest turn at most 16 ms).
//  - After a resize it replots on the next turn instead of inside the
//    resize (QCustomPlot's own resizeEvent replots at once,
//    rpQueuedRefresh). A chart resized by a layout change (a new minimum
//    height, a tab shown, a splitter moved) then costs the turn that resized
//    it nothing, and the resizes of one drag replot once.
//  - A replot ends with update(), not repaint() (QCustomPlot's default hint
//    phImmediateRefresh): repaint() flushed the whole window's dirty region
//    inside the replot, the result table's paint included, 4-5 ms of the
//    summary chart's 13 ms first replot.
//  - One paint buffer, not two: the "overlay" layer (a selection rectangle;
//    these plots have no interactions) shares the buffer of the layers
//    below it. Each buffer is a pixmap of the whole plot that every replot
//    clears and every paint blends onto the window, and a first replot
//    faults its pages in.
// SamplePlot and SummaryChart are QueuedPlots.
#pragma once
#include <qcustomplot.h>

namespace ui {

class QueuedPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit QueuedPlot(QWidget* parent = nullptr);

protected:
    void resizeEvent(QResizeEvent* event) override;
};

} // namespace ui
