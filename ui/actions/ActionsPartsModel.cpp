#include "ui/actions/ActionsPartsModel.h"

#include "core/util/Units.h"

#include <QBrush>
#include <QColor>

namespace ui {

ActionsPartsModel::ActionsPartsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ActionsPartsModel::setParts(std::shared_ptr<const std::vector<cs::actions::ActionsPart>> parts, bool merged)
{
    beginResetModel();
    parts_ = std::move(parts);
    merged_ = merged;
    endResetModel();
}

const cs::actions::ActionsPart* ActionsPartsModel::partAt(int row) const
{
    if (!parts_ || row < 0 || size_t(row) >= parts_->size())
        return nullptr;
    return &(*parts_)[size_t(row)];
}

int ActionsPartsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !parts_ ? 0 : int(parts_->size());
}

int ActionsPartsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActionsPartsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const cs::actions::ActionsPart& p = (*parts_)[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Part: return QString::number(p.index);
        case Size: return p.present ? QString::fromStdString(cs::formatSize(p.size)) : QStringLiteral("—");
        case Present: return p.present ? tr("yes") : merged_ ? tr("deleted after the merge") : tr("missing");
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Part: return qulonglong(p.index);
        case Size: return qulonglong(p.size);
        case Present: return p.present;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == Part)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ForegroundRole:
        if (index.column() == Present && !p.present && !merged_)
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        break;
    default: break;
    }
    return {};
}

QVariant ActionsPartsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Part: return tr("Part");
    case Size: return tr("Size");
    case Present: return tr("Present");
    }
    return {};
}

} // namespace ui
