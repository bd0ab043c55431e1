// The frames of a layout as a table, paged from the document's packed frames
// (cs::PackedFrames, 32 B a frame, shared with the band): a row is unpacked
// when the view asks for it, and nothing per row is held while the table is
// in file order. Another sort order is a permutation of row -> frame index
// (4 B a frame), so sorting moves 4-byte integers.
#pragma once
#include "core/frames/PackedFrames.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace ui {

class FrameTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Index, Offset, Kind, CompressedSize, ContentSize, Ratio, WindowSize, DictionaryId, Checksum,
                  SingleSegment, HeaderSize, Blocks, ColumnCount };

    explicit FrameTableModel(QObject* parent = nullptr);

    // Replaces the frames (kept sorted by the current sort column).
    void setFrames(std::shared_ptr<const cs::PackedFrames> frames);
    void clear();

    cs::FrameInfo frameAt(int row) const { return frames_->at(frameIndexAt(row)); }
    int frameCount() const { return rows_; }
    // Position in the packed frames of the frame shown at row.
    size_t frameIndexAt(int row) const { return order_.empty() ? size_t(row) : order_[size_t(row)]; }
    // Row currently showing frames[frameIndex] (position in the vector), -1 if none.
    int rowOfFrame(size_t frameIndex) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    void applySort();
    QVariant display(const cs::FrameInfo& f, int column) const;
    QVariant raw(const cs::FrameInfo& f, int column) const;

    std::shared_ptr<const cs::PackedFrames> frames_;
    int rows_ = 0;
    std::vector<uint32_t> order_;     // row -> index into *frames_; empty in file order
    int sortColumn_ = Index;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace ui
