// Table models of the benchmarks view: the samples of one or two runs (for
// CSV export: run, t, series, value), a run's result table (name, value,
// unit; sub-table cells flattened to "table / row / column"), the comparison
// of two runs (name, unit, A, B, B % of A) and the history list. The result
// and history tables are handed to their views in pages (canFetchMore /
// fetchMore, kPageRows at a time), so a view lays out and measures one page
// on the GUI thread, never a whole history at once.
#pragma once
#include "core/bench/Bench.h"

#include <QAbstractTableModel>

#include <functional>
#include <vector>

namespace ui {

class SampleTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    // runs[i] labels its samples with labels[i].
    void setRuns(std::vector<std::vector<cs::Sample>> runs, QStringList labels);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<std::vector<cs::Sample>> runs_;
    std::vector<size_t> starts_;   // first row of each run
    QStringList labels_;
    int rows_ = 0;
};

inline constexpr int kPageRows = 64;

// The paging both tables share: rowCount() is the rows fetched so far; a
// reset shows the first page, and fetchMore adds a page. A view asking for
// more while the reset is still being announced (its modelReset handler)
// gets nothing then and asks again when it lays out.
class PagedTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    virtual int totalRows() const = 0;
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : fetched_; }

protected:
    // change() replaces the rows, inside beginResetModel / endResetModel.
    void resetRows(const std::function<void()>& change);
    // Fetches pages until row is among the rows fetched.
    void fetchThrough(int row);

private:
    int fetched_ = 0;
    bool resetting_ = false;
};

class ResultTableModel : public PagedTableModel {
    Q_OBJECT
public:
    using PagedTableModel::PagedTableModel;
    int totalRows() const override { return int(rows_.size()); }
    void setResult(const cs::ResultTable& table);
    void setComparison(const std::vector<cs::ComparisonRow>& rows, const QString& a, const QString& b);
    bool isComparison() const { return comparison_; }
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Row {
        QString name, unit, text;
        std::optional<double> a, b, percent;
    };
    std::vector<Row> rows_;
    bool comparison_ = false;
    QString labelA_, labelB_;
};

class HistoryModel : public PagedTableModel {
    Q_OBJECT
public:
    using PagedTableModel::PagedTableModel;
    void setRuns(std::vector<cs::BenchRun> runs);
    const cs::BenchRun& run(int row) const { return runs_.at(size_t(row)); }
    // The row of run id, fetching pages up to it; -1 when not in the list.
    int rowOf(int64_t id);
    int rowOf(int64_t id) const;
    int totalRows() const override { return int(runs_.size()); }
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<cs::BenchRun> runs_;
};

} // namespace ui
