#include "ui/store/EntryTableModel.h"

#include "core/jobs/Job.h"
#include "core/util/Units.h"

#include <QBrush>
#include <QDateTime>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QPalette>
#include <QtConcurrent/QtConcurrentRun>

namespace ui {

using cs::store::EntryRow;
using cs::store::EntryState;
using cs::store::SortColumn;

namespace {

struct CountResult {
    uint64_t count = 0;
    QString error;
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

} // namespace

EntryTableModel::EntryTableModel(std::shared_ptr<cs::store::Store> store, QObject* parent)
    : QAbstractTableModel(parent), store_(std::move(store))
{
    try {
        count_ = store_->countEntries(filter_);
    } catch (const std::exception& e) {
        lastError_ = QString::fromUtf8(e.what());
        count_ = 0;
    }
}

EntryTableModel::~EntryTableModel() = default;

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

void EntryTableModel::dropPages() const
{
    pages_.clear();
    lru_.clear();
}

void EntryTableModel::applyFilter(const cs::store::EntryFilter& filter, uint64_t count)
{
    beginResetModel();
    filter_ = filter;
    count_ = count;
    dropPages();
    endResetModel();
}

void EntryTableModel::setKeyFilter(const QString& text)
{
    cs::store::EntryFilter filter = filter_;
    filter.keyContains = text.toStdString();
    const int generation = ++countGeneration_;
    if (!countStore_) {
        uint64_t count = 0;
        try {
            count = store_->countEntries(filter);
        } catch (const std::exception& e) {
            Q_EMIT countFailed(QString::fromUtf8(e.what()));
        }
        applyFilter(filter, count);
        Q_EMIT filterApplied(text, count);
        return;
    }
    // A substring filter scans every key: on a million rows that is longer
    // than a frame, so the count runs on a worker and stale counts are dropped.
    auto* watcher = new QFutureWatcher<CountResult>(this);
    connect(watcher, &QFutureWatcher<CountResult>::finished, this, [this, watcher, generation, filter, text] {
        watcher->deleteLater();
        if (generation != countGeneration_)
            return;
        const CountResult r = watcher->result();
        if (!r.error.isEmpty()) {
            Q_EMIT countFailed(r.error);
            return;
        }
        applyFilter(filter, r.count);
        Q_EMIT filterApplied(text, r.count);
    });
    watcher->setFuture(QtConcurrent::run([store = countStore_, filter] {
        CountResult r;
        try {
            r.count = store->countEntries(filter);
        } catch (const std::exception& e) {
            r.error = QString::fromUtf8(e.what());
        }
        return r;
    }));
}

void EntryTableModel::refresh()
{
    uint64_t count = 0;
    try {
        count = store_->countEntries(filter_);
    } catch (const std::exception& e) {
        lastError_ = QString::fromUtf8(e.what());
    }
    applyFilter(filter_, count);
}

void EntryTableModel::sort(int column, Qt::SortOrder order)
{
    const SortColumn s = column < 0 ? SortColumn::Id : sortColumnOf(column);
    const bool desc = order == Qt::DescendingOrder;
    if (s == sort_ && desc == descending_ && column == sortSection_)
        return;
    beginResetModel();
    sort_ = s;
    descending_ = desc;
    sortSection_ = column;
    dropPages();
    endResetModel();
}

const EntryRow* EntryTableModel::rowPtr(int row) const
{
    if (row < 0 || uint64_t(row) >= count_)
        return nullptr;
    const int page = row / kPageRows;
    auto it = pages_.find(page);
    if (it == pages_.end()) {
        Page p;
        try {
            p.rows = store_->listEntries(filter_, sort_, descending_, uint64_t(page) * kPageRows, kPageRows);
        } catch (const std::exception& e) {
            lastError_ = QString::fromUtf8(e.what());
        }
        ++pageFetches_;
        while (int(pages_.size()) >= kMaxPages) {
            pages_.erase(lru_.back());
            lru_.pop_back();
        }
        lru_.push_front(page);
        p.lru = lru_.begin();
        it = pages_.emplace(page, std::move(p)).first;
    } else if (it->second.lru != lru_.begin()) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
    }
    const size_t i = size_t(row % kPageRows);
    // The store may have shrunk since the count (another process evicted).
    return i < it->second.rows.size() ? &it->second.rows[i] : nullptr;
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
        case State: return QString::fromLatin1(cs::store::entryStateName(r->state));
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
