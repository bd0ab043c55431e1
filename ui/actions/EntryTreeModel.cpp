#include "ui/actions/EntryTreeModel.h"

#include "core/util/Escape.h"
#include "core/util/Units.h"

#include <QLocale>

namespace ui {

QString shownName(const std::string& bytes)
{
    return QString::fromStdString(cs::escapeControl(bytes));
}

EntryTreeModel::EntryTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void EntryTreeModel::setTree(EntryTreePtr tree)
{
    beginResetModel();
    tree_ = std::move(tree);
    endResetModel();
}

QModelIndex EntryTreeModel::indexOfNode(int node) const
{
    if (!tree_ || node <= 0 || size_t(node) >= tree_->nodes.size())
        return {};
    return createIndex(tree_->nodes[size_t(node)].row, 0, quintptr(node));
}

QModelIndex EntryTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!tree_ || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const auto& children = tree_->nodes[size_t(nodeOf(parent))].children;
    if (size_t(row) >= children.size())
        return {};
    return createIndex(row, column, quintptr(children[size_t(row)]));
}

QModelIndex EntryTreeModel::parent(const QModelIndex& child) const
{
    if (!tree_ || !child.isValid())
        return {};
    const int p = tree_->nodes[size_t(nodeOf(child))].parent;
    if (p <= 0)
        return {};
    return createIndex(tree_->nodes[size_t(p)].row, 0, quintptr(p));
}

int EntryTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!tree_ || (parent.isValid() && parent.column() != 0))
        return 0;
    return int(tree_->nodes[size_t(nodeOf(parent))].children.size());
}

int EntryTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant EntryTreeModel::data(const QModelIndex& index, int role) const
{
    if (!tree_ || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const int n = nodeOf(index);
    const EntryTreeNode& node = tree_->nodes[size_t(n)];
    const bool folder = node.type == cs::entries::MemberType::Folder;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: return shownName(node.name);
        case Size: return QString::fromStdString(cs::formatSize(node.bytes));
        case Files: return folder ? QVariant(QLocale().toString(qulonglong(node.files))) : QVariant();
        case Type: return QString::fromLatin1(cs::entries::memberTypeName(node.type));
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Name: return shownName(node.name);
        case Size: return qulonglong(node.bytes);
        case Files: return qulonglong(node.files);
        case Type: return QString::fromLatin1(cs::entries::memberTypeName(node.type));
        }
        break;
    case NodeRole: return n;
    case Qt::ToolTipRole:
        if (index.column() == Name)
            return shownName(tree_->path(n));
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == Files)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant EntryTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Size: return tr("Size");
    case Files: return tr("Files");
    case Type: return tr("Type");
    }
    return {};
}

} // namespace ui
