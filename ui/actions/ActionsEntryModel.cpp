#include "ui/actions/ActionsEntryModel.h"

#include "core/util/Units.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace ui {

ActionsEntryModel::ActionsEntryModel(QObject* parent) : QAbstractTableModel(parent) {}

void ActionsEntryModel::setSnapshot(ActionsSnapshotPtr snapshot)
{
    beginResetModel();
    snapshot_ = std::move(snapshot);
    endResetModel();
}

const cs::actions::ActionsEntry* ActionsEntryModel::entryAt(int row) const
{
    if (!snapshot_ || row < 0 || size_t(row) >= snapshot_->entries.size())
        return nullptr;
    return &snapshot_->entries[size_t(row)];
}

int ActionsEntryModel::rowOfId(const QString& id) const
{
    if (!snapshot_)
        return -1;
    const std::string wanted = id.toStdString();
    for (size_t i = 0; i < snapshot_->entries.size(); ++i)
        if (snapshot_->entries[i].id == wanted)
            return int(i);
    return -1;
}

int ActionsEntryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !snapshot_ ? 0 : int(snapshot_->entries.size());
}

int ActionsEntryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActionsEntryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cs::actions::ActionsEntry& e = snapshot_->entries[size_t(index.row())];
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
