#include "ui/actions/ActionsEntryModel.h"

#include "core/actions-cache/SizeIndex.h"
#include "core/jobs/Job.h"
#include "core/util/Units.h"
#include "ui/jobs/JobRunner.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <utility>

namespace ui {

// A page of the query.
struct QueryPage {
    cs::actions::ActionsEntryPage page;
    bool rescanNext = false;   // an index page: rescan the index next
};
using PagePtr = std::shared_ptr<QueryPage>;

ActionsEntryModel::ActionsEntryModel(QObject* parent)
    : QAbstractTableModel(parent), fetcher_(new JobRunner(this)), counter_(new JobRunner(this)), rescanner_(new JobRunner(this))
{
    for (JobRunner* r : {fetcher_, counter_, rescanner_})
        connect(r, &JobRunner::finished, this, [this](const JobOutcome& outcome) {
            if (outcome.failed())
                Q_EMIT pageFetched(false, outcome.message);
        });
    connect(rescanner_, &JobRunner::finished, this, [this] { rescanPending_ = false; });
}

void ActionsEntryModel::setLocation(ActionsDataLocation where)
{
    where_ = std::move(where);
}

void ActionsEntryModel::cancelReads()
{
    fetcher_->cancel();
    counter_->cancel();
    rescanner_->cancel();
}

void ActionsEntryModel::setSnapshot(ActionsSnapshotPtr snapshot)
{
    cancelReads();   // a page of the previous read would not continue this one
    rescanned_ = rescanPending_ = replaceNext_ = false;
    beginResetModel();
    snapshot_ = std::move(snapshot);
    // The read's rows are the default query's; another query reads its own.
    const bool own = snapshot_ && isDefaultQuery();
    rows_ = own ? snapshot_->entries : std::vector<cs::actions::ActionsEntry>();
    next_ = own ? snapshot_->next : std::nullopt;
    endResetModel();
    if (snapshot_ && !isDefaultQuery())
        readFirstPage();
}

void ActionsEntryModel::setQuery(const cs::actions::EntryQuery& query)
{
    if (query == query_)
        return;
    query_ = query;
    if (!snapshot_)
        return;
    // The rescan goes on (it is of the data, not of the query) unless this
    // query is the default one, which reads nothing from the index.
    fetcher_->cancel();
    counter_->cancel();
    replaceNext_ = false;
    beginResetModel();
    rows_.clear();
    next_.reset();
    matching_.reset();
    endResetModel();
    if (isDefaultQuery()) {
        // The read's own first pages are the default query's.
        beginResetModel();
        rows_ = snapshot_->entries;
        next_ = snapshot_->next;
        endResetModel();
        Q_EMIT pageFetched(true, QString());
        return;
    }
    readFirstPage();
}

std::optional<uint64_t> ActionsEntryModel::matchingEntries() const
{
    if (isDefaultQuery())
        return totalEntries();
    return matching_;
}

void ActionsEntryModel::readFirstPage()
{
    // The first page at once, and only then its matching count (a count of
    // a filter or of the size index goes over every entry: hundreds of ms at
    // a million), on a runner of its own. An order only the size index
    // gives reads the index (a first scan when there is none); then, once
    // per read of the data, a rescan on a third runner, whose changes, if
    // any, replace the rows with the refreshed first page. Pages keep
    // coming while the rescan runs (its transaction does not block readers
    // of the index in WAL mode).
    const bool indexed = !cs::actions::catalogServes(query_);
    const bool rescan = indexed && !rescanned_ && !rescanPending_;
    fetcher_->start(tr("Reading entries"), [paths = where_.paths, query = query_, rescan](cs::Job& job) {
        auto cache = openActionsForReading(paths);
        auto result = std::make_shared<QueryPage>();
        if (rescan && !cache->sizeIndex().built())
            cache->refreshIndex(&job);   // the first scan, with progress and cancel
        else
            result->rescanNext = rescan;
        job.checkCancel();
        result->page = cache->entriesPage(query, std::nullopt, kActionsPageSize, &job);
        return result;
    }, [this](PagePtr result) {
        addPage(std::move(result));
        countMatching();
    });
}

void ActionsEntryModel::countMatching()
{
    counter_->start(tr("Counting entries"), [paths = where_.paths, query = query_](cs::Job&) {
        auto cache = openActionsForReading(paths);
        return cache->entryCount(query);
    }, [this](uint64_t matching) {
        matching_ = matching;
        Q_EMIT countFetched();
    });
}

void ActionsEntryModel::rescanIndex()
{
    rescanPending_ = true;
    rescanner_->start(tr("Rescanning the size index"), [paths = where_.paths](cs::Job& job) {
        auto cache = openActionsForReading(paths);
        const auto st = cache->refreshIndex(&job);
        return st.rowsRead > 0 || st.entriesDeleted > 0 || st.foldersListed > 0;   // the index changed
    }, [this](bool changed) {
        rescanned_ = true;   // once per read of the data (a cancelled rescan left the index as it was)
        // Changes: the query's rows again from the refreshed index.
        if (changed && !isDefaultQuery() && !cs::actions::catalogServes(query_)) {
            fetcher_->cancel();
            counter_->cancel();
            replaceNext_ = true;
            readFirstPage();
        }
    });
}

bool ActionsEntryModel::isFetching() const
{
    return fetcher_->isRunning() || counter_->isRunning() || rescanner_->isRunning();
}

bool ActionsEntryModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && next_.has_value() && !fetcher_->isRunning();
}

void ActionsEntryModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent))
        return;
    fetcher_->start(tr("Reading more entries"), [paths = where_.paths, query = query_, after = *next_](cs::Job& job) {
        auto cache = openActionsForReading(paths);
        auto result = std::make_shared<QueryPage>();
        result->page = cache->entriesPage(query, after, kActionsPageSize, &job);
        return result;
    }, [this](PagePtr result) { addPage(std::move(result)); });
}

void ActionsEntryModel::addPage(PagePtr result)
{
    if (std::exchange(replaceNext_, false)) {
        // The rescan's first page replaces the rows read before it. The old
        // rows' cursor goes first: a view (or a model tester) asks for more
        // on the reset.
        next_.reset();
        beginResetModel();
        rows_.clear();
        endResetModel();
    }
    next_ = std::move(result->page.next);
    auto& entries = result->page.entries;
    if (!entries.empty()) {
        beginInsertRows({}, int(rows_.size()), int(rows_.size() + entries.size()) - 1);
        for (auto& e : entries)
            rows_.push_back(std::move(e));
        endInsertRows();
    }
    Q_EMIT pageFetched(true, QString());
    if (result->rescanNext)
        rescanIndex();
}

const cs::actions::ActionsEntry* ActionsEntryModel::entryAt(int row) const
{
    if (row < 0 || size_t(row) >= rows_.size())
        return nullptr;
    return &rows_[size_t(row)];
}

int ActionsEntryModel::rowOfId(const QString& id) const
{
    const std::string wanted = id.toStdString();
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].id == wanted)
            return int(i);
    return -1;
}

int ActionsEntryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(rows_.size());
}

int ActionsEntryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActionsEntryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cs::actions::ActionsEntry& e = rows_[size_t(index.row())];
    const cs::actions::EntryState state = e.state;
    // Damage the operator should see at a glance: a stalled merge, parts
    // deleted without a merged file, a folder that cannot be listed.
    const bool damaged = state == cs::actions::EntryState::MergeStarted || !e.storageError.empty()
                         || (state == cs::actions::EntryState::PartsDeleted && !e.merged())
                         || (!e.merged() && e.partsPresent < uint64_t(std::max<int64_t>(e.partCount, 0)));
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Key: return QString::fromStdString(e.key);
        case Version: return QString::fromStdString(e.version);
        case Scope: return QString::fromStdString(e.scope);
        case Repo: return QString::fromStdString(e.repoId);
        case Size: return QString::fromStdString(cs::formatSize(e.size));
        case Parts: return QString::number(e.partCount);
        case State: return actionsEntryStateName(state);
        case LastDownload: return formatEpochMs(e.lastDownloadedAtMs);
        case Updated: return formatEpochMs(e.updatedAtMs);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Key: return QString::fromStdString(e.key);
        case Version: return QString::fromStdString(e.version);
        case Scope: return QString::fromStdString(e.scope);
        case Repo: return QString::fromStdString(e.repoId);
        case Size: return qulonglong(e.size);
        case Parts: return qlonglong(e.partCount);
        case State: return actionsEntryStateName(state);
        case LastDownload: return qlonglong(e.lastDownloadedAtMs.value_or(0));
        case Updated: return qlonglong(e.updatedAtMs);
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Key || index.column() == Version || index.column() == Scope)
            return data(index, Qt::DisplayRole);
        if (index.column() == State) {
            if (!e.storageError.empty())
                return QString::fromStdString(e.storageError);
            if (state == cs::actions::EntryState::MergeStarted)
                return tr("The server started merging the parts at %1 and has not finished.")
                    .arg(formatEpochMs(e.mergeStartedAtMs));
            if (state == cs::actions::EntryState::PartsDeleted && !e.merged())
                return tr("The parts were deleted but no merge was recorded: nothing is left to serve.");
            if (!e.merged() && e.partsPresent < uint64_t(std::max<int64_t>(e.partCount, 0)))
                return tr("%1 of the %2 parts the database claims are missing on disk.")
                    .arg(uint64_t(e.partCount) - e.partsPresent)
                    .arg(e.partCount);
        }
        if (index.column() == Parts)
            return tr("%1 claimed by the database, %2 present on disk").arg(e.partCount).arg(e.partsPresent);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == Parts)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ForegroundRole:
        if (index.column() == State && damaged)
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        break;
    case EntryIdRole: return QString::fromStdString(e.id);
    case StateRole: return int(state);
    default: break;
    }
    return {};
}

QVariant ActionsEntryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key: return tr("Key");
    case Version: return tr("Version");
    case Scope: return tr("Scope");
    case Repo: return tr("Repo");
    case Size: return tr("Size");
    case Parts: return tr("Parts");
    case State: return tr("State");
    case LastDownload: return tr("Last download");
    case Updated: return tr("Updated");
    }
    return {};
}

} // namespace ui
