// Table models of the benchmarks view: the samples of one or two runs (for
// CSV export: run, t, series, value), a run's result table (name, value,
// unit; sub-table cells flattened to "table / row / column"), the comparison
// of two runs (name, unit, A, B, B % of A) and the history list.
#pragma once
#include "core/bench/Bench.h"

#include <QAbstractTableModel>

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

class ResultTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(const cs::ResultTable& table);
    void setComparison(const std::vector<cs::ComparisonRow>& rows, const QString& a, const QString& b);
    bool isComparison() const { return comparison_; }
    int rowCount(const QModelIndex& parent = {}) const override;
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

class HistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setRuns(std::vector<cs::BenchRun> runs);
    const cs::BenchRun& run(int row) const { return runs_.at(size_t(row)); }
    int rowOf(int64_t id) const;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<cs::BenchRun> runs_;
};

} // namespace ui
