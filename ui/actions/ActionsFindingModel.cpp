#include "ui/actions/ActionsFindingModel.h"

#include <QDir>

namespace ui {

ActionsFindingModel::ActionsFindingModel(QObject* parent) : QAbstractTableModel(parent) {}

void ActionsFindingModel::setFindings(std::vector<cs::actions::Finding> findings)
{
    beginResetModel();
    findings_ = std::move(findings);
    endResetModel();
}

int ActionsFindingModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(findings_.size());
}

int ActionsFindingModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActionsFindingModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cs::actions::Finding& p = findings_[size_t(index.row())];
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Kind: return QString::fromLatin1(cs::actions::findingKindName(p.kind));
        case Entry:
            if (!p.key.empty())
                return QString::fromStdString(p.key);
            if (!p.entryId.empty())
                return QString::fromStdString(p.entryId);
            return tr("folder %1").arg(QString::fromStdString(p.folder));
        case Path: return QDir::toNativeSeparators(QString::fromStdString(p.path));
        case Finding: return QString::fromStdString(p.message);
        }
    }
    return {};
}

QVariant ActionsFindingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Kind: return tr("Kind");
    case Entry: return tr("Entry");
    case Path: return tr("Path");
    case Finding: return tr("Finding");
    }
    return {};
}

} // namespace ui
