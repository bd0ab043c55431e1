// The cache-server document's Report tab: the server report
// (core/entries/ServerReport.h) as one chart (ReportChart.h: families,
// scopes, days since the last download, past retention by reason, and a
// caption with retention, health, compression, repetition), and below it
// the entries past the retention that the report names (the oldest
// --retention-list of them: "the oldest N of M listed"), each with its
// reason and the sentence why. Built off the GUI thread (a JobRunner job)
// when the tab is first shown and on Refresh, with progress, time left and
// Cancel; reads the server's data only (the size index is cachescope's own
// file). The chart exports through the same dialog as the benchmark charts
// (Export Chart…: PNG, PDF, SVG), the list as CSV, the report as the CLI's
// JSON.
#pragma once
#include "ui/actions/ActionsData.h"

#include "core/entries/ServerReport.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <optional>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace ui {
class JobProgressWidget;
class JobRunner;

// The entries past the retention that a report lists, oldest last use first.
class RetainedEntryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Key, Version, Scope, Size, LastUsed, Reason, Why, ColumnCount };
    explicit RetainedEntryModel(QObject* parent = nullptr);
    void setEntries(std::vector<cs::entries::RetainedEntry> entries, int64_t nowMs);
    const std::vector<cs::entries::RetainedEntry>& entries() const { return entries_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<cs::entries::RetainedEntry> entries_;
    int64_t nowMs_ = 0;
};

class ActionsReportView : public QWidget {
    Q_OBJECT
public:
    explicit ActionsReportView(ActionsDataLocation where, QWidget* parent = nullptr);
    ~ActionsReportView() override;

    // Builds the report again (a job; cancels one running).
    void refresh();
    const std::optional<cs::entries::ServerReport>& report() const { return report_; }
    QCustomPlot* plot() const { return plot_; }
    // "Past a retention of 30 days: ... the oldest N of M listed."
    QLabel* retentionHeader() const { return retentionHeader_; }
    RetainedEntryModel* retainedModel() const { return retained_; }
    QLabel* statusLabel() const { return status_; }
    JobRunner* runner() const { return runner_; }
    JobProgressWidget* progress() const { return progress_; }
    QSpinBox* retentionBox() const { return retention_; }
    QCheckBox* decodeBox() const { return decode_; }
    bool exportChart(const QString& path, QString* error);

Q_SIGNALS:
    // The job ended: ok, or the error (cancelled: ok false, "cancelled").
    void built(bool ok, const QString& message);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showReport(const cs::entries::ServerReport& r);

    ActionsDataLocation where_;
    JobRunner* runner_;
    JobProgressWidget* progress_;
    QSpinBox* retention_;
    QCheckBox* decode_;
    QPushButton* refresh_;
    QPushButton* exportChart_;
    QPushButton* exportList_;
    QPushButton* exportJson_;
    QLabel* status_;
    QCustomPlot* plot_;
    QLabel* retentionHeader_;
    RetainedEntryModel* retained_;
    QTableView* retainedTable_;
    std::optional<cs::entries::ServerReport> report_;
    bool shown_ = false;
};

} // namespace ui
