// The parts pane's table: one entry's parts as the core listed them
// (cs::actions::ActionsCache::parts: the present ones with their size, and
// the missing indexes below the count the database claims), in index order.
#pragma once
#include "core/actions-cache/ActionsCache.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace ui {

class ActionsPartsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Part, Size, Present, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ActionsPartsModel(QObject* parent = nullptr);

    // merged: the entry was merged, so parts that are gone were deleted by
    // the server after the merge (its design), not lost: shown neutral.
    void setParts(std::shared_ptr<const std::vector<cs::actions::ActionsPart>> parts, bool merged = false);
    void clear() { setParts(nullptr); }
    const cs::actions::ActionsPart* partAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const std::vector<cs::actions::ActionsPart>> parts_;
    bool merged_ = false;
};

} // namespace ui
