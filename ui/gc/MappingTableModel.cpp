#include "ui/gc/MappingTableModel.h"

#include "ui/charts/ChartExport.h"
#include "ui/gc/GcFormat.h"

#include <limits>

namespace ui {

MappingTableModel::MappingTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void MappingTableModel::setGeneration(std::shared_ptr<const cs::pack::Generation> generation)
{
    beginResetModel();
    generation_ = std::move(generation);
    endResetModel();
}

int MappingTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !generation_)
        return 0;
    // A view cannot show more rows than an int holds; 2^31 records would be a 48 GiB mapping.
    return int(std::min<uint64_t>(generation_->mapping.size(), uint64_t(std::numeric_limits<int>::max())));
}

int MappingTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MappingTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !generation_ || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != RawValueRole && role != Qt::ToolTipRole)
        return {};
    const cs::pack::MappingRecord r = generation_->mapping.at(uint64_t(index.row()));
    uint64_t v = 0;
    switch (Column(index.column())) {
    case Record: v = uint64_t(index.row()); break;
    case Offset: v = r.offset; break;
    case End: v = r.offset + r.length; break;
    case Length: v = r.length; break;
    case PrefixOffset: v = r.prefixOffset; break;
    case ColumnCount: return {};
    }
    if (role == RawValueRole)
        return QVariant::fromValue<qulonglong>(v);
    if (role == Qt::ToolTipRole)
        return index.column() == Length ? gcfmt::size(v) : gcfmt::offset(v);
    return gcfmt::count(v);
}

QVariant MappingTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section;
    switch (Column(section)) {
    case Record: return tr("Record");
    case Offset: return tr("Offset");
    case End: return tr("End");
    case Length: return tr("Length");
    case PrefixOffset: return tr("Prefix offset");
    case ColumnCount: break;
    }
    return {};
}

} // namespace ui
