// The cache-server entries table: the entries of the last read
// (ActionsSnapshot: the first page in the catalog's key order), then more
// pages as the view asks (canFetchMore/fetchMore): each page is read off
// the GUI thread from where the last one ended (keyset paging), so a
// catalog of a million entries opens on its first page and scrolls page by
// page. Sorting and the key filter are a QSortFilterProxyModel over
// SortRole (ActionsBrowser); they apply to the rows loaded so far.
#pragma once
#include "ui/actions/ActionsData.h"

#include <QAbstractTableModel>

namespace ui {
class JobRunner;

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

    // Where fetchMore reads the next pages.
    void setLocation(ActionsDataLocation where);
    // Shows a new read (its first pages); a page still being fetched is dropped.
    void setSnapshot(ActionsSnapshotPtr snapshot);
    const ActionsSnapshotPtr& snapshot() const { return snapshot_; }
    const std::vector<cs::actions::ActionsEntry>& entries() const { return rows_; }
    uint64_t totalEntries() const { return snapshot_ ? std::max<uint64_t>(snapshot_->totalEntries, rows_.size()) : 0; }
    bool isFetching() const;

    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    // The entry of a source row; nullptr out of range.
    const cs::actions::ActionsEntry* entryAt(int row) const;
    int rowOfId(const QString& id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // A page arrived (rows appended) or failed (error is the sentence).
    void pageFetched(bool ok, const QString& error);

private:
    void onPage(bool ok, const QString& resultOrError);

    ActionsDataLocation where_;
    ActionsSnapshotPtr snapshot_;
    std::vector<cs::actions::ActionsEntry> rows_;
    std::optional<cs::actions::EntryCursor> next_;
    JobRunner* fetcher_;
};

} // namespace ui
