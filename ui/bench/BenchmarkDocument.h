// The benchmarks view: pick a scenario and its parameters (a form built from
// the scenario's parameter specs), run and cancel it through a JobRunner,
// watch the timeline (samples and phases queued from the worker and drawn
// by a 30 Hz timer, which trims points older than the live window and
// issues one queued replot: replots never outpace the display), read the
// summary chart (ours beside the reference per phase) and the result table
// when the run ends, browse the history, compare two runs (both runs'
// bars, overlaid timelines, a table with B as % of A) and export the
// summary or the timeline (PNG/PDF/SVG), the samples (CSV) and the result
// (JSON).
//
// Runs are kept in the user's history database, or in the catalog of the
// store given to setStore().
#pragma once
#include "core/bench/Bench.h"
#include "ui/shell/Document.h"

#include <QWidget>

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QTableView;
class QTabWidget;
class QTimer;

namespace ui {
struct JobOutcome;
class HistoryModel;
class JobProgressWidget;
class JobRunner;
class ResultTableModel;
class SampleTableModel;
class SamplePlot;
class SummaryChart;

class BenchmarkDocument : public QWidget, public Document {
    Q_OBJECT
public:
    // historyPath: a history database file; empty = the user's default one.
    explicit BenchmarkDocument(const QString& historyPath = {}, QWidget* parent = nullptr);
    ~BenchmarkDocument() override;

    // Keep runs in this store's catalog (empty: back to the history database).
    bool setStore(const QString& storeDir, QString* error = nullptr);
    QString historyLocation() const;

    void selectScenario(const QString& name);
    QString scenario() const;
    void setParam(const QString& name, const QString& value);
    void setLiveWindowSeconds(double seconds);

    // Starts the selected scenario; false when one is already running.
    bool run();
    void cancel();
    bool isRunning() const;

    void reloadHistory();
    bool showRun(qint64 id);
    bool compare(qint64 a, qint64 b);
    // The run(s) currently shown (one, or two when comparing).
    const std::vector<cs::BenchRun>& shownRuns() const { return shown_; }

    // The summary chart (the default figure), or the timeline of samples.
    bool exportChart(const QString& path, QString* error);
    bool exportTimeline(const QString& path, QString* error);
    bool exportSamplesCsv(const QString& path, QString* error);
    bool exportResultJson(const QString& path, QString* error);

    SamplePlot* plot() const { return plot_; }
    SummaryChart* summary() const { return summary_; }
    // Shows the summary (true) or the timeline tab.
    void showSummaryTab(bool summary);
    JobRunner* jobRunner() const override { return runner_; }
    void refresh() override { reloadHistory(); }
    QList<QAction*> exportActions() const override { return exportActions_; }
    const HistoryModel* historyModel() const { return history_; }
    const ResultTableModel* resultModel() const { return results_; }
    qint64 liveSamplesReceived() const { return liveReceived_; }

    // Feeds samples as if a scenario produced them (any thread); the live
    // timer draws them. For the view's own stress test.
    void injectLiveSamples(const std::vector<cs::Sample>& samples);
    // The live timer hands the plot at most this many samples a tick, so a
    // burst is drawn over several ticks and the event loop runs in between.
    static constexpr size_t kMaxLiveSamplesPerTick = 50000;

Q_SIGNALS:
    // A run finished (done, failed or cancelled) and is in the history (id > 0).
    void runFinished(qint64 id, const QString& status);

private:
    struct Queue {
        std::mutex mutex;
        std::deque<cs::Sample> samples;   // a tick takes from the front in O(taken)
        std::vector<cs::Phase> phases;    // the run's phases so far (each sent at begin and end)
        bool phasesChanged = false;
    };
    void buildForm();
    void drainLive();
    void onFinished(const JobOutcome& outcome);
    void showRuns(std::vector<cs::BenchRun> runs);
    // The parts of showing shown_, each one turn of the event loop's work.
    void showTables();
    void showSummary();
    void showTimeline();
    void compareSelected();
    void showSelected();
    void deleteSelected();
    void setRunning(bool running);
    cs::BenchHistory openHistory() const;

    QString historyPath_;
    QString storeDir_;
    QComboBox* scenarioBox_;
    QLabel* description_;
    QFormLayout* form_;
    std::vector<std::pair<QString, QLineEdit*>> paramEdits_;
    QPushButton* runButton_;
    QPushButton* cancelButton_;
    JobProgressWidget* progress_;
    JobRunner* runner_;
    SamplePlot* plot_;
    SummaryChart* summary_;
    QTabWidget* charts_;
    QScrollArea* summaryScroll_;
    QTableView* resultView_;
    ResultTableModel* results_;
    QTableView* historyView_;
    HistoryModel* history_;
    SampleTableModel* sampleModel_;
    QLabel* statusLabel_;
    QTimer* liveTimer_;
    std::shared_ptr<Queue> queue_;
    std::shared_ptr<cs::BenchRun> pending_;   // the run the worker fills in
    std::vector<cs::BenchRun> shown_;
    quint64 shownGeneration_ = 0;   // moves on with every shown_, so a staged show can tell it is stale
    QList<QAction*> exportActions_;
    qint64 liveReceived_ = 0;
    double liveWindow_ = 600;
};

} // namespace ui
