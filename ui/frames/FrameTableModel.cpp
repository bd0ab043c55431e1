#include "ui/frames/FrameTableModel.h"

#include "ui/charts/ChartExport.h"
#include "ui/frames/FrameCategory.h"

#include <QLocale>

#include <algorithm>
#include <limits>
#include <numeric>

namespace ui {

namespace {

// Sort key of a frame for a column: numbers compare as numbers; frames that
// lack the value (no declared size, skippable frames) sort first.
double sortKey(const cs::FrameInfo& f, int column)
{
    switch (column) {
    case FrameTableModel::Index: return double(f.index);
    case FrameTableModel::Offset: return double(f.offset);
    case FrameTableModel::Kind: return double(int(frameCategory(f)));
    case FrameTableModel::CompressedSize: return double(f.compressedSize);
    case FrameTableModel::ContentSize: return f.contentSize ? double(*f.contentSize) : -1.0;
    case FrameTableModel::Ratio:
        return f.contentSize && f.compressedSize ? double(*f.contentSize) / double(f.compressedSize) : -1.0;
    case FrameTableModel::WindowSize: return double(f.windowSize);
    case FrameTableModel::DictionaryId: return double(f.dictionaryId);
    case FrameTableModel::Checksum: return f.checksum ? 1 : 0;
    case FrameTableModel::SingleSegment: return f.singleSegment ? 1 : 0;
    case FrameTableModel::HeaderSize: return double(f.headerSize);
    case FrameTableModel::Blocks: return double(f.blocks[0] + f.blocks[1] + f.blocks[2]);
    }
    return 0;
}

bool isZstd(const cs::FrameInfo& f)
{
    return f.kind == cs::FrameKind::Zstd;
}

} // namespace

FrameTableModel::FrameTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void FrameTableModel::setFrames(std::shared_ptr<const cs::PackedFrames> frames)
{
    beginResetModel();
    frames_ = std::move(frames);
    // Positions are 32-bit in the permutation: a file of more frames shows the first 2^32 - 1.
    total_ = std::min<size_t>(frames_ ? frames_->size() : 0, std::numeric_limits<uint32_t>::max());
    page_ = 0;
    order_.clear();
    reversed_ = false;
    if (total_)
        applySort();
    rows_ = rowsOnPage(page_);
    endResetModel();
    Q_EMIT pageChanged();
}

void FrameTableModel::clear()
{
    setFrames(nullptr);
}

void FrameTableModel::setPageRows(size_t rows)
{
    beginResetModel();
    pageRows_ = std::clamp<size_t>(rows, 1, size_t(std::numeric_limits<int>::max()));
    page_ = 0;
    rows_ = rowsOnPage(page_);
    endResetModel();
    Q_EMIT pageChanged();
}

void FrameTableModel::setPage(size_t page)
{
    page = std::min(page, pageCount() - 1);
    if (page == page_)
        return;
    beginResetModel();
    page_ = page;
    rows_ = rowsOnPage(page_);
    endResetModel();
    Q_EMIT pageChanged();
}

int FrameTableModel::rowsOnPage(size_t page) const
{
    const size_t first = page * pageRows_;
    return first >= total_ ? 0 : int(std::min(pageRows_, total_ - first));
}

size_t FrameTableModel::positionOfFrame(size_t frameIndex) const
{
    if (frameIndex >= total_)
        return total_;
    if (order_.empty())
        return reversed_ ? total_ - 1 - frameIndex : frameIndex;
    // Only on a click in the band: a scan of the permutation, not a second one.
    const auto it = std::find(order_.begin(), order_.end(), uint32_t(frameIndex));
    return it == order_.end() ? total_ : size_t(it - order_.begin());
}

int FrameTableModel::rowOfFrame(size_t frameIndex) const
{
    const size_t position = positionOfFrame(frameIndex);
    if (position >= total_ || position / pageRows_ != page_)
        return -1;
    return int(position % pageRows_);
}

int FrameTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : rows_;
}

int FrameTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FrameTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Index: return tr("#");
        case Offset: return tr("Offset");
        case Kind: return tr("Kind");
        case CompressedSize: return tr("Compressed");
        case ContentSize: return tr("Content size");
        case Ratio: return tr("Ratio");
        case WindowSize: return tr("Window");
        case DictionaryId: return tr("Dict ID");
        case Checksum: return tr("Checksum");
        case SingleSegment: return tr("Single segment");
        case HeaderSize: return tr("Header");
        case Blocks: return tr("Blocks (C/R/RLE)");
        }
    }
    if (role == Qt::ToolTipRole && section == Blocks)
        return tr("Compressed, raw and RLE blocks (counted when blocks were walked)");
    return {};
}

QVariant FrameTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rows_ || index.column() >= ColumnCount)
        return {};
    const cs::FrameInfo f = frameAt(index.row());
    switch (role) {
    case Qt::DisplayRole: return display(f, index.column());
    case RawValueRole: return raw(f, index.column());
    case Qt::TextAlignmentRole:
        return index.column() == Kind ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                      : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::DecorationRole:
        if (index.column() == Kind)
            return frameCategoryColor(frameCategory(f));
        return {};
    case Qt::ToolTipRole: return frameDetails(f);
    default: return {};
    }
}

QVariant FrameTableModel::display(const cs::FrameInfo& f, int column) const
{
    static const QLocale locale;
    switch (column) {
    case Index: return QString::number(f.index);
    case Offset: return locale.toString(qulonglong(f.offset));
    case Kind:
        return isZstd(f) || f.role != cs::SkippableRole::Other ? frameCategoryName(frameCategory(f))
                                                                : frameCategoryName(frameCategory(f)) + QLatin1Char(' ') + magicText(f.magic);
    case CompressedSize: return locale.toString(qulonglong(f.compressedSize));
    case ContentSize:
        if (!isZstd(f))
            return QString();
        return f.contentSize ? locale.toString(qulonglong(*f.contentSize)) : tr("unknown");
    case Ratio:
        if (!f.contentSize || !f.compressedSize)
            return QString();
        return QString::number(double(*f.contentSize) / double(f.compressedSize), 'f', 2);
    case WindowSize: return isZstd(f) ? sizeText(f.windowSize) : QString();
    case DictionaryId: return isZstd(f) && f.dictionaryId ? QString::number(f.dictionaryId) : QString();
    case Checksum: return isZstd(f) ? (f.checksum ? tr("yes") : tr("no")) : QString();
    case SingleSegment: return isZstd(f) ? (f.singleSegment ? tr("yes") : tr("no")) : QString();
    case HeaderSize: return QString::number(f.headerSize);
    case Blocks:
        if (!isZstd(f) || f.blocks[0] + f.blocks[1] + f.blocks[2] == 0)
            return QString();
        return QStringLiteral("%1/%2/%3").arg(f.blocks[2]).arg(f.blocks[0]).arg(f.blocks[1]);
    }
    return {};
}

QVariant FrameTableModel::raw(const cs::FrameInfo& f, int column) const
{
    switch (column) {
    case Index: return qulonglong(f.index);
    case Offset: return qulonglong(f.offset);
    case Kind:
        if (isZstd(f))
            return QString::fromLatin1(cs::frameKindName(f.kind));
        return f.role == cs::SkippableRole::Other ? QString::fromLatin1(cs::frameKindName(f.kind))
                                                  : QString::fromLatin1(cs::skippableRoleName(f.role));
    case CompressedSize: return qulonglong(f.compressedSize);
    case ContentSize: return f.contentSize ? QVariant(qulonglong(*f.contentSize)) : QVariant(QString());
    case Ratio: return display(f, column);
    case WindowSize: return isZstd(f) ? QVariant(qulonglong(f.windowSize)) : QVariant(QString());
    case DictionaryId: return isZstd(f) ? QVariant(f.dictionaryId) : QVariant(QString());
    case Checksum: return isZstd(f) ? QVariant(f.checksum ? 1 : 0) : QVariant(QString());
    case SingleSegment: return isZstd(f) ? QVariant(f.singleSegment ? 1 : 0) : QVariant(QString());
    case HeaderSize: return f.headerSize;
    case Blocks: return display(f, column);
    }
    return {};
}

void FrameTableModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    sortColumn_ = column;
    sortOrder_ = order;
    if (total_ == 0)
        return;
    if (page_ != 0) {
        // A new order starts at its first page (whose row count may differ).
        beginResetModel();
        applySort();
        page_ = 0;
        rows_ = rowsOnPage(page_);
        endResetModel();
        Q_EMIT pageChanged();
        return;
    }
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<size_t> frameOf;
    frameOf.reserve(size_t(before.size()));
    for (const QModelIndex& i : before)
        frameOf.push_back(frameIndexAt(i.row()));
    applySort();
    QModelIndexList after;
    after.reserve(before.size());
    // A frame the new order puts on another page loses its index.
    for (qsizetype k = 0; k < before.size(); ++k)
        after.push_back(index(rowOfFrame(frameOf[size_t(k)]), before[k].column()));
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void FrameTableModel::applySort()
{
    const size_t n = total_;
    order_.clear();
    reversed_ = false;
    if (sortColumn_ == Index) {
        // File order needs no permutation, nor does its reverse.
        reversed_ = sortOrder_ == Qt::DescendingOrder;
        return;
    }
    // Keys computed once per frame: the comparator then touches only doubles.
    std::vector<double> keys(n);
    for (size_t i = 0; i < n; ++i)
        keys[i] = sortKey(frames_->at(i), sortColumn_);
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0u);
    if (sortOrder_ == Qt::AscendingOrder)
        std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    else
        std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return keys[a] > keys[b]; });
}

} // namespace ui
