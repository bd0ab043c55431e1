#include "ui/actions/ActionsUploadModel.h"

namespace ui {

ActionsUploadModel::ActionsUploadModel(QObject* parent) : QAbstractTableModel(parent) {}

void ActionsUploadModel::setSnapshot(ActionsSnapshotPtr snapshot)
{
    beginResetModel();
    snapshot_ = std::move(snapshot);
    endResetModel();
}

int ActionsUploadModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !snapshot_ ? 0 : int(snapshot_->uploads.size());
}

int ActionsUploadModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActionsUploadModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cs::actions::ActionsUpload& a = snapshot_->uploads[size_t(index.row())];
    const cs::actions::UploadRow& u = a.row;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Id: return QString::number(u.id);
        case Key: return QString::fromStdString(u.key);
        case Version: return QString::fromStdString(u.version);
        case Scope: return QString::fromStdString(u.scope);
        case Started: return QString::number(u.startedPartUploadCount);
        case Finished: return QString::number(u.finishedPartUploadCount);
        case PartsOnDisk: return QString::number(a.partsPresent);
        case Age: return formatAgeMs(a.ageMs);
        case Folder: return QString::fromStdString(u.folderName);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Id: return qlonglong(u.id);
        case Key: return QString::fromStdString(u.key);
        case Version: return QString::fromStdString(u.version);
        case Scope: return QString::fromStdString(u.scope);
        case Started: return qlonglong(u.startedPartUploadCount);
        case Finished: return qlonglong(u.finishedPartUploadCount);
        case PartsOnDisk: return qulonglong(a.partsPresent);
        case Age: return qlonglong(a.ageMs);
        case Folder: return QString::fromStdString(u.folderName);
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Age)
            return tr("Created %1, last part %2").arg(formatEpochMs(u.createdAtMs), formatEpochMs(u.lastPartUploadedAtMs));
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Id || index.column() == Started || index.column() == Finished
            || index.column() == PartsOnDisk || index.column() == Age)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant ActionsUploadModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Id: return tr("Upload");
    case Key: return tr("Key");
    case Version: return tr("Version");
    case Scope: return tr("Scope");
    case Started: return tr("Parts started");
    case Finished: return tr("Parts finished");
    case PartsOnDisk: return tr("Parts on disk");
    case Age: return tr("Idle for");
    case Folder: return tr("Folder");
    }
    return {};
}

} // namespace ui
