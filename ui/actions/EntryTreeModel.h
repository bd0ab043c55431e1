// The Contents tab's model: an entry's folders and members as a tree
// (EntryTree, built off the GUI thread), with sizes and file counts.
// Sorting and the search go through a QSortFilterProxyModel (SortRole).
#pragma once
#include "ui/actions/EntryTree.h"

#include <QAbstractItemModel>

namespace ui {

class EntryTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, Size, Files, Type, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int NodeRole = Qt::UserRole + 2;   // index into EntryTree::nodes

    explicit EntryTreeModel(QObject* parent = nullptr);
    void setTree(EntryTreePtr tree);
    void clear() { setTree(nullptr); }
    const EntryTreePtr& tree() const { return tree_; }
    QModelIndex indexOfNode(int node) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int nodeOf(const QModelIndex& index) const { return index.isValid() ? int(index.internalId()) : 0; }
    EntryTreePtr tree_;
};

// A name as the tables show it: control characters and bytes that are not
// UTF-8 escaped (core/util/Escape.h).
QString shownName(const std::string& bytes);

} // namespace ui
