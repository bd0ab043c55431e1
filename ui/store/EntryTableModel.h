// The store browser's entries table: a read-only model that pages rows out of
// the catalog on demand, so a store of millions of entries opens at once.
//
// Rows live in a small cache of pages of kPageRows rows (LRU, at most
// kMaxPages pages), each page one indexed query. After every reset a worker
// builds page anchors for the listing (Store::buildPageAnchors: the sort key
// of every kPageRows-th row, one index scan); from then on a page is a keyset
// seek from its anchor, so a jump to any row (a dragged scrollbar) costs the
// same as the first page. Until the anchors arrive, and whenever the catalog
// changed since they were built (the store reports them stale), pages are
// read with LIMIT/OFFSET, which is exact but walks the skipped rows; stale
// anchors are rebuilt shortly after. Sorting is the catalog's ORDER BY (sort() changes the
// query, never sorts in memory), filtering is a key substring in the WHERE
// clause. rowCount is Store::countEntries for the current filter; with a
// count store set, a new filter's count runs off the GUI thread and the
// model switches to the new filter (one reset) when the count arrives.
#pragma once
#include "core/store/Store.h"
#include "ui/jobs/Background.h"

#include <QAbstractTableModel>
#include <QString>
#include <QTimer>

#include <list>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace cs { class Job; }

namespace ui {

class EntryTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Key, Version, Scope, Size, State, Parts, Created, LastAccess, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,   // raw value: bytes, unix seconds, state name, ...
        EntryIdRole,                   // qint64 catalog id
        StateRole,                     // int(cs::store::EntryState)
    };
    static constexpr int kPageRows = 256;
    static constexpr int kMaxPages = 8;

    // store: the connection pages are read from, on the GUI thread.
    // countStore (optional): a second connection; every count (the first
    // one too: a cold count of a million rows reads the whole index) then
    // runs off the GUI thread, and rowCount is 0 until it arrives.
    explicit EntryTableModel(std::shared_ptr<cs::store::Store> store,
                             std::shared_ptr<cs::store::Store> countStore = nullptr, QObject* parent = nullptr);
    ~EntryTableModel() override;

    // A second connection for counting off the GUI thread (optional).
    void setCountStore(std::shared_ptr<cs::store::Store> store) { countStore_ = std::move(store); }
    bool isCounting() const { return counting_; }
    // With a count store: data() never waits for the catalog. A row whose
    // page is not cached shows a placeholder, the page is read on a worker
    // (most recently wanted page first, one read at a time) and dataChanged
    // follows. entryAt()/entryIdAt() still read synchronously.
    void setAsyncPages(bool on) { asyncPages_ = on && countStore_; }
    bool isRowLoaded(int row) const { return pages_.count(row / kPageRows) > 0; }

    // Applies a key filter (substring, case-sensitive). Synchronous without a
    // count store; otherwise the switch happens when filterApplied() fires.
    void setKeyFilter(const QString& text);
    QString keyFilter() const { return QString::fromStdString(filter_.keyContains); }
    // Re-counts and drops every cached page (after the store changed); with
    // a count store the reset comes with filterApplied().
    void refresh();
    // Another process changed the catalog: re-counts and re-reads the cached
    // pages off the GUI thread (count store required; otherwise refresh()),
    // then swaps them in without a reset: rows are added or removed at the
    // end and dataChanged covers the rest, so views keep their scroll
    // position and selected rows. refreshedInPlace() follows.
    void refreshInPlace();
    // The row of entry id among the rows read so far, -1 when not loaded.
    int loadedRowOf(int64_t id) const;

    cs::store::SortColumn sortColumn() const { return sort_; }
    bool sortDescending() const { return descending_; }
    static cs::store::SortColumn sortColumnOf(int column);

    // The row (fetching its page when needed); nullopt when out of range.
    std::optional<cs::store::EntryRow> entryAt(int row) const;
    int64_t entryIdAt(int row) const;
    // Rows fetched from the catalog so far (pages x rows), for tests.
    uint64_t pageFetches() const { return pageFetches_; }
    // Page anchors of the current listing are ready (tests: pages read by a
    // seek from an anchor so far).
    bool hasAnchors() const { return anchors_ != nullptr; }
    uint64_t anchoredFetches() const { return anchoredFetches_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    static QString formatTime(double unixSeconds);

Q_SIGNALS:
    // The model now shows the filter (after its count arrived).
    void filterApplied(const QString& text, qulonglong count);
    void countFailed(const QString& error);
    // Page anchors for the current listing arrived (pages now seek).
    void anchorsReady();
    // A refreshInPlace() has been applied (rows may have moved).
    void refreshedInPlace();

private:
    struct Page {
        std::vector<cs::store::EntryRow> rows;
        std::list<int>::iterator lru;
    };
    const cs::store::EntryRow* rowPtr(int row) const;
    Page* cachedPage(int page) const;
    void insertPage(int page, std::vector<cs::store::EntryRow> rows) const;
    void requestPage(int page) const;
    void startNextFetch();
    void applyFilter(const cs::store::EntryFilter& filter, uint64_t count);
    void startCount(const cs::store::EntryFilter& filter);
    void dropPages();
    void startAnchors();
    std::vector<cs::store::EntryRow> readPage(const cs::store::Store& store, int page) const;

    std::shared_ptr<cs::store::Store> store_;
    std::shared_ptr<cs::store::Store> countStore_;
    cs::store::EntryFilter filter_;
    cs::store::SortColumn sort_ = cs::store::SortColumn::Id;
    bool descending_ = false;
    int sortSection_ = -1;
    uint64_t count_ = 0;
    int countGeneration_ = 0;
    bool counting_ = false;
    bool asyncPages_ = false;
    int generation_ = 0;                 // bumped at every reset: late pages are dropped
    mutable std::vector<int> wanted_;    // pages asked for by data(), most recent last
    bool fetching_ = false;
    mutable std::unordered_map<int, Page> pages_;
    mutable std::list<int> lru_;   // page numbers, most recent first
    mutable uint64_t pageFetches_ = 0;
    mutable QString lastError_;
    std::shared_ptr<const cs::store::PageAnchors> anchors_;   // for generation_, or null
    std::shared_ptr<cs::Job> anchorJob_;                      // the build whose result is awaited
    QTimer* anchorRebuild_ = nullptr;                         // debounces rebuilds of stale anchors
    mutable uint64_t anchoredFetches_ = 0;
    Background background_;   // counts, anchors and pages off the GUI thread
};

} // namespace ui
