// Compare… for two cache entries: the members added, removed or changed
// between them (core/entries/EntryDiff.h, both archives read at once off the
// GUI thread, cancellable), as a sortable table with a byte summary.
#pragma once
#include "core/actions-cache/ActionsCache.h"
#include "core/entries/EntryDiff.h"

#include <QAbstractTableModel>
#include <QDialog>

#include <memory>
#include <optional>

class QLabel;
class QTableView;

namespace ui {
class JobProgressWidget;
class JobRunner;

using EntryDiffPtr = std::shared_ptr<const cs::entries::EntryDiff>;

class EntryDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Change, Path, SizeA, SizeB, What, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    explicit EntryDiffModel(QObject* parent = nullptr);
    void setDiff(EntryDiffPtr diff);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    EntryDiffPtr diff_;
};

class EntryCompareDialog : public QDialog {
    Q_OBJECT
public:
    EntryCompareDialog(cs::actions::DataDirPaths paths, cs::actions::ActionsEntry a, cs::actions::ActionsEntry b,
                       QWidget* parent = nullptr);
    ~EntryCompareDialog() override;
    EntryDiffModel* model() const { return model_; }
    QLabel* summary() const { return summary_; }
    JobRunner* runner() const { return runner_; }

Q_SIGNALS:
    void compared(bool ok);

private:
    void showDiff(EntryDiffPtr diff);

    EntryDiffModel* model_;
    QLabel* summary_;
    QTableView* table_;
    JobProgressWidget* progress_;
    JobRunner* runner_;
};

} // namespace ui
