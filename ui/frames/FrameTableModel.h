// The frames of a layout as a table, paged from the document's packed frames
// (cs::PackedFrames, 32 B a frame, shared with the band): a row is unpacked
// when the view asks for it, and nothing per row is held while the table is
// in file order (either way). Another sort order is a permutation of
// position -> frame index (4 B a frame), so sorting moves 4-byte integers.
//
// The table shows one page of at most pageRows() frames of that order: a
// view keeps state for every row it is given (QHeaderView: 8 B a row, 80 MB
// for 10 M frames, more than the frames' own budget allows; issue 22), so a
// file of millions of frames is shown a page at a time (FramePageBar moves
// between pages; a click in the band goes to its frame's page).
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

    static constexpr size_t kDefaultPageRows = size_t(1) << 18;   // 262,144 rows: 2 MiB of header

    explicit FrameTableModel(QObject* parent = nullptr);

    // Replaces the frames (kept sorted by the current sort column) and shows
    // the first page.
    void setFrames(std::shared_ptr<const cs::PackedFrames> frames);
    void clear();

    // Rows of a page (at least 1, at most INT_MAX); shows the first page.
    void setPageRows(size_t rows);
    size_t pageRows() const { return pageRows_; }
    size_t pageCount() const { return total_ ? (total_ + pageRows_ - 1) / pageRows_ : 1; }
    size_t page() const { return page_; }
    // Shows page (clamped to the last one); resets the model.
    void setPage(size_t page);
    // Position in the sort order of the first row shown.
    size_t firstPositionShown() const { return page_ * pageRows_; }
    // Every frame, on every page.
    size_t frameCount() const { return total_; }

    cs::FrameInfo frameAt(int row) const { return frames_->at(frameIndexAt(row)); }
    // Position in the packed frames of the frame shown at row.
    size_t frameIndexAt(int row) const { return frameAtPosition(page_ * pageRows_ + size_t(row)); }
    // Where frames[frameIndex] is in the sort order (its page is that divided
    // by pageRows()); frameCount() if there is no such frame.
    size_t positionOfFrame(size_t frameIndex) const;
    // Row currently showing frames[frameIndex], -1 if none or on another page.
    int rowOfFrame(size_t frameIndex) const;

    int sortColumn() const { return sortColumn_; }
    Qt::SortOrder sortOrder() const { return sortOrder_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

Q_SIGNALS:
    // The page shown, the page count or the frames changed.
    void pageChanged();

private:
    size_t frameAtPosition(size_t position) const
    {
        return !order_.empty() ? order_[position] : reversed_ ? total_ - 1 - position : position;
    }
    int rowsOnPage(size_t page) const;
    void applySort();
    QVariant display(const cs::FrameInfo& f, int column) const;
    QVariant raw(const cs::FrameInfo& f, int column) const;

    std::shared_ptr<const cs::PackedFrames> frames_;
    size_t total_ = 0;                // frames shown over all pages
    size_t pageRows_ = kDefaultPageRows;
    size_t page_ = 0;
    int rows_ = 0;                    // on the current page
    std::vector<uint32_t> order_;     // position -> index into *frames_; empty in file order
    bool reversed_ = false;           // file order, descending (no permutation held)
    int sortColumn_ = Index;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace ui
