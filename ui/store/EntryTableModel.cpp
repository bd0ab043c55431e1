#include "ui/store/EntryTableModel.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"

#include <QBrush>
#include <QDateTime>
#include <QGuiApplication>
#include <QPalette>

namespace ui {

using cs::store::EntryRow;
using cs::store::EntryState;
using cs::store::SortColumn;

namespace {

struct CountResult {
    uint64_t count = 0;
    std::string error;
};

// Keys are arbitrary bytes: show control characters (NUL, newlines) visibly.
QString displayKey(const std::string& key)
{
    QString s = QString::fromUtf8(key.data(), qsizetype(key.size()));
    for (QChar& c : s)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            c = QChar(0x2400 + (c.unicode() == 0x7f ? 0x21 : c.unicode()));   // Control Pictures block
    return s;
}

// "merging" while a merge of it runs (in any process), "unmerged (merge
// failed)" after one failed: its sentence is the cell's tooltip.
QString stateText(const EntryRow& r)
{
    if (r.state == EntryState::Unmerged && r.merging)
        return QStringLiteral("merging");
    if (r.state == EntryState::Unmerged && !r.mergeError.empty())
        return QStringLiteral("unmerged (merge failed)");
    return QString::fromLatin1(cs::store::entryStateName(r.state));
}

} // namespace

EntryTableModel::EntryTableModel(std::shared_ptr<cs::store::Store> store, std::shared_ptr<cs::store::Store> countStore,
                                 QObject* parent)
    : QAbstractTableModel(parent), store_(std::move(store)), countStore_(std::move(countStore)),
      anchorRebuild_(new QTimer(this))
{
    // Stale anchors mean the catalog is changing (uploads, evictions): rebuild
    // at most this often, pages in between are read with OFFSET.
    anchorRebuild_->setSingleShot(true);
    anchorRebuild_->setInterval(1000);
    connect(anchorRebuild_, &QTimer::timeout, this, &EntryTableModel::startAnchors);
    if (countStore_) {
        startCount(filter_);
        return;
    }
    try {
        count_ = store_->countEntries(filter_);
    } catch (const std::exception& e) {
        lastError_ = QString::fromUtf8(e.what());
        count_ = 0;
    }
    startAnchors();
}

EntryTableModel::~EntryTableModel()
{
    if (anchorJob_)
        anchorJob_->cancel();
}

SortColumn EntryTableModel::sortColumnOf(int column)
{
    switch (column) {
    case Key: return SortColumn::Key;
    case Version: return SortColumn::Version;
    case Scope: return SortColumn::Scope;
    case Size: return SortColumn::Size;
    case State: return SortColumn::State;
    case Parts: return SortColumn::Parts;
    case Created: return SortColumn::Created;
    case LastAccess: return SortColumn::LastAccess;
    default: return SortColumn::Id;
    }
}

void EntryTableModel::dropPages()
{
    pages_.clear();
    lru_.clear();
    wanted_.clear();
    // The anchors belong to the old listing: drop them before the reset
    // signals, as views read rows while the model resets.
    anchorRebuild_->stop();
    if (anchorJob_)
        anchorJob_->cancel();
    anchorJob_.reset();
    anchors_.reset();
}

void EntryTableModel::applyFilter(const cs::store::EntryFilter& filter, uint64_t count)
{
    beginResetModel();
    ++generation_;
    filter_ = filter;
    count_ = count;
    dropPages();
    endResetModel();
    startAnchors();
}

void EntryTableModel::startAnchors()
{
    anchorRebuild_->stop();
    if (anchorJob_)
        anchorJob_->cancel();
    anchorJob_.reset();
    anchors_.reset();   // pages read with OFFSET until the new ones arrive
    // A listing of a few pages never walks far: no anchors needed.
    if (count_ <= uint64_t(kPageRows) * kMaxPages)
        return;
    auto job = std::make_shared<cs::Job>("page anchors");
    anchorJob_ = job;
    const int generation = generation_;
    using Anchors = std::shared_ptr<const cs::store::PageAnchors>;
    // buildPageAnchors reads on a connection of its own: the store's
    // connection stays free for pages meanwhile.
    auto store = countStore_ ? countStore_ : store_;
    background_.run(
        [store, filter = filter_, sort = sort_, desc = descending_, job]() -> Anchors {
            try {
                job->start();
                return std::make_shared<const cs::store::PageAnchors>(
                    store->buildPageAnchors(filter, sort, desc, *job, uint64_t(kPageRows)));
            } catch (const std::exception&) {
                return nullptr;   // cancelled or failed: pages keep using OFFSET
            }
        },
        [this, generation, job](Anchors a) {
            if (job != anchorJob_)
                return;   // superseded (reset, or rebuilt meanwhile)
            anchorJob_.reset();
            if (!a || generation != generation_)
                return;
            anchors_ = std::move(a);
            Q_EMIT anchorsReady();
        });
}

namespace {

// Unmerged rows whose merge runs now, in any process (a CLI get or put that
// returned and merges behind), read as "merging": one flock probe a row.
std::vector<EntryRow> markMerging(const cs::store::Store& store, std::vector<EntryRow> rows)
{
    for (auto& r : rows)
        r.merging = r.state == EntryState::Unmerged && store.mergeRunning(r.id);
    return rows;
}

} // namespace

std::vector<EntryRow> EntryTableModel::readPage(const cs::store::Store& store, int page) const
{
    const uint64_t offset = uint64_t(page) * kPageRows;
    if (!anchors_)
        return markMerging(store, store.listEntries(filter_, sort_, descending_, offset, kPageRows));
    bool stale = false;
    auto rows = markMerging(store, store.listEntries(*anchors_, offset, kPageRows, &stale));
    if (stale && !anchorRebuild_->isActive() && !anchorJob_)
        anchorRebuild_->start();
    else if (!stale)
        ++anchoredFetches_;
    return rows;
}

void EntryTableModel::setKeyFilter(const QString& text)
{
    cs::store::EntryFilter filter = filter_;
    filter.keyContains = text.toStdString();
    if (countStore_) {
        startCount(filter);
        return;
    }
    ++countGeneration_;
    uint64_t count = 0;
    try {
        count = store_->countEntries(filter);
    } catch (const std::exception& e) {
        Q_EMIT countFailed(QString::fromUtf8(e.what()));
    }
    applyFilter(filter, count);
    Q_EMIT filterApplied(text, count);
}

void EntryTableModel::startCount(const cs::store::EntryFilter& filter)
{
    // A substring filter scans every key, and a cold count reads a whole
    // index: on a million rows either is longer than a frame, so counts run
    // on a worker and only the latest one is applied.
    const int generation = ++countGeneration_;
    counting_ = true;
    background_.run(
        [store = countStore_, filter] {
            CountResult r;
            try {
                r.count = store->countEntries(filter);
            } catch (const std::exception& e) {
                r.error = e.what();
            }
            return r;
        },
        [this, generation, filter](const CountResult& r) {
            if (generation != countGeneration_)
                return;
            counting_ = false;
            if (!r.error.empty()) {
                Q_EMIT countFailed(QString::fromStdString(r.error));
                return;
            }
            applyFilter(filter, r.count);
            Q_EMIT filterApplied(QString::fromStdString(filter.keyContains), r.count);
        });
}

void EntryTableModel::refresh()
{
    if (countStore_) {
        startCount(filter_);
        return;
    }
    uint64_t count = 0;
    try {
        count = store_->countEntries(filter_);
    } catch (const std::exception& e) {
        lastError_ = QString::fromUtf8(e.what());
    }
    applyFilter(filter_, count);
}

void EntryTableModel::refreshInPlace()
{
    if (!countStore_) {
        refresh();
        return;
    }
    if (counting_)
        return;   // a new filter's count is on its way: its reset reads everything again
    std::vector<int> cached;
    for (const auto& [page, p] : pages_)
        cached.push_back(page);
    struct Reread {
        uint64_t count = 0;
        std::vector<std::pair<int, std::vector<EntryRow>>> pages;
        bool ok = false;
    };
    const int generation = generation_;
    background_.run(
        [store = countStore_, filter = filter_, sort = sort_, desc = descending_, cached] {
            Reread r;
            try {
                r.count = store->countEntries(filter);
                for (int page : cached)
                    if (uint64_t(page) * kPageRows < r.count)
                        r.pages.emplace_back(
                            page, markMerging(*store, store->listEntries(filter, sort, desc, uint64_t(page) * kPageRows,
                                                                         kPageRows)));
                r.ok = true;
            } catch (const std::exception&) {
                r.ok = false;   // the next change (or F5) reads again
            }
            return r;
        },
        [this, generation](Reread r) {
            // A reset (filter, sort, refresh) since the start has read everything anew.
            if (!r.ok || generation != generation_ || counting_)
                return;
            const uint64_t old = count_;
            if (r.count > old) {
                beginInsertRows({}, int(old), int(r.count) - 1);
                count_ = r.count;
                endInsertRows();
            } else if (r.count < old) {
                beginRemoveRows({}, int(r.count), int(old) - 1);
                count_ = r.count;
                endRemoveRows();
            }
            // Pages in flight were read before the change: they must not land.
            ++generation_;
            pages_.clear();
            lru_.clear();
            wanted_.clear();
            for (auto& [page, rows] : r.pages)
                insertPage(page, std::move(rows));
            startAnchors();   // the old ones are stale
            if (count_ > 0)
                Q_EMIT dataChanged(index(0, 0), index(int(count_) - 1, ColumnCount - 1));
            Q_EMIT refreshedInPlace();
        });
}

int EntryTableModel::loadedRowOf(int64_t id) const
{
    for (const auto& [page, p] : pages_)
        for (size_t i = 0; i < p.rows.size(); ++i)
            if (p.rows[i].id == id)
                return page * kPageRows + int(i);
    return -1;
}

void EntryTableModel::sort(int column, Qt::SortOrder order)
{
    const SortColumn s = column < 0 ? SortColumn::Id : sortColumnOf(column);
    const bool desc = order == Qt::DescendingOrder;
    if (s == sort_ && desc == descending_ && column == sortSection_)
        return;
    beginResetModel();
    ++generation_;
    sort_ = s;
    descending_ = desc;
    sortSection_ = column;
    dropPages();
    endResetModel();
    startAnchors();
}

EntryTableModel::Page* EntryTableModel::cachedPage(int page) const
{
    auto it = pages_.find(page);
    if (it == pages_.end())
        return nullptr;
    if (it->second.lru != lru_.begin())
        lru_.splice(lru_.begin(), lru_, it->second.lru);
    return &it->second;
}

void EntryTableModel::insertPage(int page, std::vector<EntryRow> rows) const
{
    if (Page* p = cachedPage(page)) {
        p->rows = std::move(rows);
        return;
    }
    while (int(pages_.size()) >= kMaxPages) {
        pages_.erase(lru_.back());
        lru_.pop_back();
    }
    lru_.push_front(page);
    Page p;
    p.rows = std::move(rows);
    p.lru = lru_.begin();
    pages_.emplace(page, std::move(p));
}

const EntryRow* EntryTableModel::rowPtr(int row) const
{
    if (row < 0 || uint64_t(row) >= count_)
        return nullptr;
    const int page = row / kPageRows;
    Page* p = cachedPage(page);
    if (!p) {
        std::vector<EntryRow> rows;
        try {
            rows = readPage(*store_, page);
        } catch (const std::exception& e) {
            lastError_ = QString::fromUtf8(e.what());
        }
        ++pageFetches_;
        insertPage(page, std::move(rows));
        p = cachedPage(page);
    }
    const size_t i = size_t(row % kPageRows);
    // The store may have shrunk since the count (another process evicted).
    return i < p->rows.size() ? &p->rows[i] : nullptr;
}

void EntryTableModel::requestPage(int page) const
{
    std::erase(wanted_, page);
    wanted_.push_back(page);
    // Only the latest few matter: a fast scroll asks for pages it has passed.
    constexpr size_t kMaxWanted = 4;
    if (wanted_.size() > kMaxWanted)
        wanted_.erase(wanted_.begin(), wanted_.end() - long(kMaxWanted));
    if (!fetching_)
        QMetaObject::invokeMethod(const_cast<EntryTableModel*>(this), &EntryTableModel::startNextFetch, Qt::QueuedConnection);
}

void EntryTableModel::startNextFetch()
{
    while (!wanted_.empty() && pages_.count(wanted_.back()))
        wanted_.pop_back();
    if (fetching_ || wanted_.empty())
        return;
    const int page = wanted_.back();
    wanted_.pop_back();
    fetching_ = true;
    const int generation = generation_;
    struct Fetched {
        std::vector<EntryRow> rows;
        bool anchored = false;   // read by a seek from an anchor
        bool stale = false;      // the anchors no longer match the catalog
    };
    background_.run(
        [store = countStore_, anchors = anchors_, filter = filter_, sort = sort_, desc = descending_, page] {
            Fetched f;
            const uint64_t offset = uint64_t(page) * kPageRows;
            try {
                if (anchors) {
                    f.rows = markMerging(*store, store->listEntries(*anchors, offset, kPageRows, &f.stale));
                    f.anchored = !f.stale;
                } else {
                    f.rows = markMerging(*store, store->listEntries(filter, sort, desc, offset, kPageRows));
                }
            } catch (const std::exception&) {
                f.rows.clear();   // shown as empty rows; the next refresh reads again
            }
            return f;
        },
        [this, page, generation](Fetched f) {
            fetching_ = false;
            if (generation == generation_) {
                ++pageFetches_;
                anchoredFetches_ += f.anchored ? 1 : 0;
                if (f.stale && !anchorRebuild_->isActive() && !anchorJob_)
                    anchorRebuild_->start();
                insertPage(page, std::move(f.rows));
                const int first = page * kPageRows;
                const int last = std::min(rowCount(), first + kPageRows) - 1;
                if (last >= first)
                    Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
            }
            startNextFetch();
        });
}

std::optional<EntryRow> EntryTableModel::entryAt(int row) const
{
    if (const EntryRow* r = rowPtr(row))
        return *r;
    return std::nullopt;
}

int64_t EntryTableModel::entryIdAt(int row) const
{
    const EntryRow* r = rowPtr(row);
    return r ? r->id : 0;
}

int EntryTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return int(std::min<uint64_t>(count_, uint64_t(std::numeric_limits<int>::max())));
}

int EntryTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString EntryTableModel::formatTime(double unixSeconds)
{
    if (unixSeconds <= 0)
        return tr("never");
    return QDateTime::fromMSecsSinceEpoch(qint64(unixSeconds * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QVariant EntryTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (asyncPages_ && !isRowLoaded(index.row())) {
        requestPage(index.row() / kPageRows);
        if (role == Qt::DisplayRole && index.column() == Key)
            return tr("loading…");
        return {};
    }
    const EntryRow* r = rowPtr(index.row());
    if (!r)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Key: return displayKey(r->key);
        case Version: return QString::fromStdString(r->version);
        case Scope: return QString::fromStdString(r->scope);
        case Size: return QString::fromStdString(cs::formatSize(r->size));
        case State: return stateText(*r);
        case Parts: return r->state == EntryState::Merged ? QStringLiteral("—") : QString::number(r->partCount);
        case Created: return formatTime(r->created);
        case LastAccess: return formatTime(r->lastAccess);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Key: return QString::fromStdString(r->key);
        case Version: return QString::fromStdString(r->version);
        case Scope: return QString::fromStdString(r->scope);
        case Size: return qulonglong(r->size);
        case State: return QString::fromLatin1(cs::store::entryStateName(r->state));
        case Parts: return uint(r->partCount);
        case Created: return r->created;
        case LastAccess: return r->lastAccess;
        }
        break;
    case EntryIdRole:
        return qint64(r->id);
    case StateRole:
        return int(r->state);
    case Qt::ToolTipRole:
        if (index.column() == Key)
            return tr("%1\nid %2 · %3 bytes · sha256 %4")
                .arg(displayKey(r->key))
                .arg(r->id)
                .arg(r->size)
                .arg(QString::fromStdString(r->sha256));
        if (index.column() == Size)
            return tr("%1 bytes").arg(r->size);
        if (index.column() == State && !r->mergeError.empty())
            return tr("The last merge failed: %1").arg(QString::fromStdString(r->mergeError));
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == Parts)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ForegroundRole:
        if (index.column() == State && r->state != EntryState::Merged)
            return QBrush(r->state == EntryState::Unmerged ? QColor(0xc0, 0x6a, 0x00) : QColor(0x80, 0x80, 0x80));
        break;
    default:
        break;
    }
    return {};
}

QVariant EntryTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Key: return tr("Key");
    case Version: return tr("Version");
    case Scope: return tr("Scope");
    case Size: return tr("Size");
    case State: return tr("State");
    case Parts: return tr("Parts");
    case Created: return tr("Created");
    case LastAccess: return tr("Last access");
    }
    return {};
}

} // namespace ui
