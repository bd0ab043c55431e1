// A QCustomPlot of benchmark samples: one axis rect per unit (stacked, x =
// seconds since the run started, shared), one graph per series, with a legend
// in each rect. Live use: append() samples as they come and call refresh()
// from a timer (it trims points older than the window with removeBefore()
// and issues a queued replot). Comparison: addRun() draws a whole run; the
// second run's graphs are dashed in the same colours. Recolours itself on
// palette changes (PlotTheme plus the per-rect legends).
#pragma once
#include <QHash>
#include <QString>
#include <qcustomplot.h>

#include <vector>

namespace cs { struct Sample; }

namespace ui {

class SamplePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit SamplePlot(QWidget* parent = nullptr);
    static constexpr int kDensePoints = 5000;

    void clearAll();
    // Live: points older than windowSeconds before the newest are trimmed (0 = keep all).
    void setWindowSeconds(double seconds) { window_ = seconds; }
    void append(const cs::Sample& sample, int run = 0);
    void append(const std::vector<cs::Sample>& samples, int run = 0);
    // A whole run; run 1 is drawn dashed, labels get " (label)" when label is set.
    void addRun(const std::vector<cs::Sample>& samples, int run, const QString& label);
    // Applies the window, rescales the axes and replots (queued).
    void refresh();

    int graphCountForSeries() const { return int(graphs_.size()); }
    // Points currently held by the graph of series (run 0); -1 when no such series.
    int pointCount(const QString& series, int run = 0) const;
    qint64 totalAppended() const { return appended_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    QCPGraph* graphFor(const QString& series, int run);
    QCPAxisRect* rectForUnit(const QString& unit);
    void styleLegends();
    void showPlaceholder();

    QHash<QString, QCPGraph*> graphs_;          // "run\nseries"
    QHash<QString, int> colorIndex_;            // series -> colour index
    QHash<QString, QCPAxisRect*> rects_;        // unit -> rect
    QHash<QCPAxisRect*, QCPLegend*> legends_;
    QHash<int, QString> runLabels_;
    QCPMarginGroup* margins_ = nullptr;
    QCPTextElement* placeholder_ = nullptr;
    double window_ = 0;
    double newest_ = 0;
    qint64 appended_ = 0;
};

} // namespace ui
