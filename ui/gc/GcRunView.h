// Runs the GC of a store (or a dry run) off the GUI thread and shows it:
// the steps with a spinner and check marks, a progress bar with time left
// and Cancel, then the per-step getrusage table and the totals; the history
// of runs (gc_runs); two runs side by side with B as a percentage of A and a
// bar chart of per-step wall times. Tables export to CSV, the chart to PNG,
// PDF or SVG (ChartExport).
//
// After a real GC (even a failed one: it may have swapped) the view emits
// storeModified(); the store document forwards it to its other views.
#pragma once
#include "core/gc/Gc.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QStandardItemModel;
class QTabWidget;
class QTableView;

namespace ui {
struct JobOutcome;
class GcStepList;
class JobProgressWidget;
class JobRunner;

class GcRunView : public QWidget {
    Q_OBJECT
public:
    explicit GcRunView(const QString& storeDir, QWidget* parent = nullptr);
    ~GcRunView() override;

    const QString& storeDir() const { return storeDir_; }
    JobRunner* jobRunner() const { return runner_; }
    JobRunner* historyRunner() const { return historyRunner_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* dryRunButton() const { return dryRun_; }
    GcStepList* stepList() const { return steps_; }
    QStandardItemModel* stepsModel() const { return stepsModel_; }
    QStandardItemModel* totalsModel() const { return totalsModel_; }
    QStandardItemModel* historyModel() const { return historyModel_; }
    QStandardItemModel* compareModel() const { return compareModel_; }
    QTableView* historyView() const { return historyView_; }
    QCustomPlot* chart() const { return chart_; }
    QCheckBox* showDryRuns() const { return showDryRuns_; }
    // Runs as last loaded (newest first, dry runs included).
    const std::vector<cs::gc::GcRun>& runs() const { return runs_; }
    // The result of the last run this view started (nullptr before).
    const cs::gc::GcResult* lastResult() const { return last_.get(); }

public Q_SLOTS:
    void runGc();
    void runDryRun();
    void loadHistory();
    // Compares two runs of the loaded history; the older one is A.
    bool compareRuns(int64_t runA, int64_t runB);
    void compareSelected();

Q_SIGNALS:
    void storeModified();
    void runFinished(bool ok);
    void historyLoaded();
    void compared();

private:
    void start(bool dryRun);
    void finished(const JobOutcome& outcome);
    void historyFinished(const JobOutcome& outcome);
    void showHistory();
    QWidget* makeTableBox(QTableView* view, const QString& title, QStandardItemModel* model, const QString& exportName);

    QString storeDir_;
    JobRunner* runner_;
    JobRunner* historyRunner_;
    QPushButton* run_;
    QPushButton* dryRun_;
    QLabel* status_;
    JobProgressWidget* progress_;
    GcStepList* steps_;
    QTabWidget* tabs_;
    QStandardItemModel* stepsModel_;
    QStandardItemModel* totalsModel_;
    QStandardItemModel* historyModel_;
    QStandardItemModel* compareModel_;
    QTableView* historyView_;
    QCheckBox* showDryRuns_;
    QCustomPlot* chart_;
    QWidget* compareTab_;
    bool runningDry_ = false;
    std::unique_ptr<cs::gc::GcResult> last_;
    std::vector<cs::gc::GcRun> runs_;
};

} // namespace ui
