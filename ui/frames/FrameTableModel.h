// The frames of a layout as a table. Holds the frames once (shared with the
// band and histogram) and sorts through a permutation of row -> frame index,
// so sorting 100,000 frames moves 4-byte integers and data() allocates
// nothing but the QVariant it returns.
#pragma once
#include "core/frames/FrameLayout.h"

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
    void setFrames(std::shared_ptr<const std::vector<cs::FrameInfo>> frames);
    void clear();

    const cs::FrameInfo& frameAt(int row) const { return (*frames_)[order_[size_t(row)]]; }
    int frameCount() const { return int(order_.size()); }
    // Position in the frames vector of the frame shown at row.
    size_t frameIndexAt(int row) const { return order_[size_t(row)]; }
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

    std::shared_ptr<const std::vector<cs::FrameInfo>> frames_;
    std::vector<uint32_t> order_;     // row -> index into *frames_
    std::vector<uint32_t> rowOf_;     // index into *frames_ -> row
    int sortColumn_ = Index;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace ui
