// The picture of a benchmark run for a pull request: for each comparison
// of the result (core/bench ResultTable::comparisons: a phase of ours and
// the reference tool's figure from the same run) a pair of bars, ours
// beside the reference, with ours / reference printed above the pair and
// whether that is better; one panel per unit (MB/s, MB, s, x), each saying
// which direction is better; a caption naming the scenario, parameters,
// machine, version and date. With two runs (Compare) each comparison has
// both runs' pairs, and above B's pair the change of ours from A in percent.
// It is the default figure of Export Chart… and of `cachescope-cli bench
// --plot` (cachescope --render-run).
#pragma once
#include "core/bench/Bench.h"

#include "ui/charts/QueuedPlot.h"

#include <vector>

namespace ui {

class SummaryChart : public QueuedPlot {
    Q_OBJECT
public:
    explicit SummaryChart(QWidget* parent = nullptr);

    // One run, or two (A, B) compared; empty clears.
    void setRuns(const std::vector<cs::BenchRun>& runs);

    // What is drawn, for tests and the export: pairs of bars (per run),
    // the text printed on each pair, the caption.
    int pairCount() const { return pairs_; }
    const QStringList& pairLabels() const { return pairLabels_; }
    const QStringList& ratioLabels() const { return ratioLabels_; }
    QString caption() const { return caption_; }
    QStringList units() const { return units_; }
    static QColor oursColor(int run = 0);
    static QColor referenceColor(int run = 0);
    // "1.27×" for a ratio, as printed on the pairs.
    static QString ratioText(double ratio);
    // "write 2 workers" of "write 2 workers MB/s" (the name without its unit
    // or figure word: MB/s, peak RSS, wall).
    static QString pairName(const cs::Comparison& c);
    // scenario, parameters, machine, version and date of a run, one line each.
    static QString captionOf(const cs::BenchRun& run);

private:
    void showMessage(const QString& text);

    int pairs_ = 0;
    QStringList pairLabels_, ratioLabels_, units_;
    QString caption_;
};

} // namespace ui
