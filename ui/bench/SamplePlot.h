// A QCustomPlot of benchmark samples over time (x = seconds since the run
// started, shared by every panel):
//  - one panel (axis rect) per quantity, each with one unit: bytes done
//    (MB), RSS (MB: ours and the reference tool's on the same, own scale),
//    CPU (cores), throughput (MB/s), and one per other unit;
//  - the run's phases as labelled bands across every panel (ours blue, the
//    reference tool's orange, set-up grey), and one graph per phase and
//    series, so a counter such as "done MB" restarts inside its own band
//    instead of drawing a sawtooth across bands;
//  - throughput drawn faint as sampled, smoothed over kSmoothSeconds (a
//    moving mean, stated on the axis), with each phase's mean as a dashed
//    line across its band.
// Live use: setPhases() and append() as samples come and call refresh()
// from a timer (it trims points older than the window with removeBefore()
// and issues a queued replot). Comparison: addRun() draws a whole run; the
// second run's graphs are dashed in the same colours (bands: run 0's).
// Recolours itself on palette changes (PlotTheme plus the per-rect legends).
#pragma once
#include "core/bench/Bench.h"

#include <QHash>
#include <QString>
#include "ui/charts/QueuedPlot.h"

#include <deque>
#include <vector>

namespace ui {

class SamplePlot : public QueuedPlot {
    Q_OBJECT
public:
    explicit SamplePlot(QWidget* parent = nullptr);
    static constexpr int kDensePoints = 5000;
    static constexpr double kSmoothSeconds = 1.0;

    // The panel a series is drawn in: "bytes done (MB)", "RSS (MB)",
    // "CPU (cores)", "throughput (MB/s)", else its unit ("count" for none).
    static QString panelOf(const QString& series);

    void clearAll();
    // Live: points older than windowSeconds before the newest are trimmed (0 = keep all).
    void setWindowSeconds(double seconds) { window_ = seconds; }
    // The phases of a run so far (the last one may still be running: its
    // end is extended to the newest sample). Samples are drawn in the phase
    // whose band holds their time; call before appending them.
    void setPhases(const std::vector<cs::Phase>& phases, int run = 0);
    void append(const cs::Sample& sample, int run = 0);
    void append(const std::vector<cs::Sample>& samples, int run = 0);
    // A whole run with its phases; run 1 is drawn dashed, labels get " (label)" when label is set.
    void addRun(const std::vector<cs::Sample>& samples, const std::vector<cs::Phase>& phases, int run,
                const QString& label);
    // Applies the window, rescales the axes and replots (queued).
    void refresh();

    int graphCountForSeries() const { return int(graphs_.size()); }
    // Points currently held by the graphs of series (run 0, every phase); -1 when no such series.
    int pointCount(const QString& series, int run = 0) const;
    // Graphs drawn for series in run (one per phase it has samples in).
    int phaseGraphCount(const QString& series, int run = 0) const;
    // The graph of series in phase (-1: a run without phases); null when none.
    QCPGraph* graphOf(const QString& series, int phase, int run = 0) const;
    QCPAxisRect* panelRect(const QString& panel) const { return rects_.value(panel); }
    QStringList panels() const { return panelOrder_; }
    int phaseBandCount() const { return int(bands_.size()); }
    // The smoothed throughput graph and mean line of a phase (null when none).
    QCPGraph* smoothedGraphOf(const QString& series, int phase, int run = 0) const;
    QCPItemLine* meanLineOf(const QString& series, int phase, int run = 0) const;
    qint64 totalAppended() const { return appended_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Smoothing {
        QCPGraph* graph = nullptr;       // moving mean
        QCPItemLine* mean = nullptr;     // phase mean
        QCPItemText* meanText = nullptr;
        std::deque<std::pair<double, double>> window;
        double windowSum = 0, sum = 0, first = 0, last = 0;
        qint64 count = 0;
    };
    struct Band {
        std::vector<QCPItemRect*> rects;   // one per panel
        QCPItemText* label = nullptr;      // in the top panel
        cs::Phase phase;
    };
    static QString keyOf(int run, int phase, const QString& series);
    int phaseOf(double t, int run) const;
    QCPGraph* graphFor(const QString& series, int phase, int run);
    QCPAxisRect* rectForPanel(const QString& panel);
    Smoothing& smoothingFor(const QString& series, int phase, int run, QCPGraph* raw);
    void smooth(Smoothing& s, double t, double value);
    void addBandRect(Band& band, QCPAxisRect* rect);
    void updateBands();
    void updateMeans();
    void styleLegends();
    void showPlaceholder();

    QHash<QString, QCPGraph*> graphs_;          // "run\nphase\nseries"
    QHash<QString, Smoothing> smoothing_;       // same keys, throughput series only
    QHash<QString, int> colorIndex_;            // series -> colour index
    QHash<QString, QCPAxisRect*> rects_;        // panel -> rect
    QStringList panelOrder_;
    QHash<QCPAxisRect*, QCPLegend*> legends_;
    QHash<QString, bool> inLegend_;             // "run\nseries" shown once
    QHash<int, QString> runLabels_;
    QHash<int, std::vector<cs::Phase>> phases_;
    std::vector<Band> bands_;                   // run 0's phases
    QCPMarginGroup* margins_ = nullptr;
    QCPTextElement* placeholder_ = nullptr;
    double window_ = 0;
    double newest_ = 0;
    qint64 appended_ = 0;
};

} // namespace ui
