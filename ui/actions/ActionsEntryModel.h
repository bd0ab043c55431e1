// The cache-server entries table: the entries of the last read
// (ActionsSnapshot: the first page in the catalog's key order), then more
// pages as the view asks (canFetchMore/fetchMore): each page is read off
// the GUI thread from where the last one ended (keyset paging), so a
// catalog of a million entries opens on its first page and scrolls page by
// page. The key filter and the orders the catalog can give (key up or down,
// updatedAt newest or oldest first) are its SQL (setQuery: the rows are read
// again from the first page of the query), so a filter on a million entries
// finds every match; sorting by the columns that come from the files (size,
// parts, state, last download) reads pages from the size index (SizeIndex.h)
// over every entry: the first page at once, then its count, and one rescan
// per read of the data, whose changes replace the rows. Pages, counts and
// the rescan run on three runners, so neither a count nor a rescan holds
// back the next page.
#pragma once
#include "ui/actions/ActionsData.h"

#include <QAbstractTableModel>

namespace ui {
class JobRunner;
struct QueryPage;

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
    // Entries in the catalog (at the last read).
    uint64_t totalEntries() const { return snapshot_ ? std::max<uint64_t>(snapshot_->totalEntries, rows_.size()) : 0; }
    // The catalog's filter and order. A different query empties the rows and
    // reads its first page (and its matching count) off the GUI thread.
    void setQuery(const cs::actions::EntryQuery& query);
    const cs::actions::EntryQuery& query() const { return query_; }
    bool isDefaultQuery() const
    {
        return query_ == cs::actions::EntryQuery{};
    }
    // Entries matching the query: totalEntries() for the default query,
    // else the count read after its first page (nullopt until it arrives:
    // countFetched()).
    std::optional<uint64_t> matchingEntries() const;
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
    // The query's matching count arrived (matchingEntries()).
    void countFetched();

private:
    void addPage(std::shared_ptr<QueryPage> result);
    void readFirstPage();
    void countMatching();
    void rescanIndex();
    void cancelReads();

    ActionsDataLocation where_;
    ActionsSnapshotPtr snapshot_;
    std::vector<cs::actions::ActionsEntry> rows_;
    std::optional<cs::actions::EntryCursor> next_;
    cs::actions::EntryQuery query_;
    std::optional<uint64_t> matching_;   // of a non-default query
    bool rescanned_ = false;             // the size index was rescanned since the last read
    bool rescanPending_ = false;         // a rescan started for this read has not ended
    bool replaceNext_ = false;           // the next first page replaces the rows (the rescan changed them)
    JobRunner* fetcher_;                 // pages
    JobRunner* counter_;                 // the query's matching count
    JobRunner* rescanner_;               // the size index's rescan
};

} // namespace ui
