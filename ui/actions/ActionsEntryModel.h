// The cache-server entries table: one row per cache_entries row of the last
// read (ActionsSnapshot), in memory (a server holds thousands of entries,
// not millions; its own cleanup evicts). Sorting and the key filter are a
// QSortFilterProxyModel over SortRole (ActionsBrowser).
#pragma once
#include "ui/actions/ActionsData.h"

#include <QAbstractTableModel>

namespace ui {

class ActionsEntryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Key, Version, Scope, Repo, Size, Parts, State, LastDownload, Updated, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,   // raw value: bytes, epoch ms, state name, ...
        EntryIdRole,                   // QString cache_entries.id
        StateRole,                     // int(cs::actions::EntryState)
    };

    explicit ActionsEntryModel(QObject* parent = nullptr);

    void setSnapshot(ActionsSnapshotPtr snapshot);
    const ActionsSnapshotPtr& snapshot() const { return snapshot_; }
    // The entry of a source row; nullptr out of range.
    const cs::actions::ActionsEntry* entryAt(int row) const;
    int rowOfId(const QString& id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ActionsSnapshotPtr snapshot_;
};

} // namespace ui
