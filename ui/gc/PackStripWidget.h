// The pack drawn to scale as a strip of live (kept) and dead (reclaimable)
// ranges, with gaps for offsets an earlier GC already collected and a marker
// at the split point. Zoom with the wheel (at the cursor) or zoomIn/zoomOut,
// pan by dragging or with Shift+wheel.
//
// Painting never walks the ranges: whenever the visible span or the width
// changes, the live and dead bytes of each pixel column are computed from
// the running totals (two binary searches per column) into an image, and a
// frame only draws that image. A column holding any live or dead byte shows
// it with at least a few pixels of height, so a range narrower than a pixel
// still gets one pixel.
//
// Hover emits hoverChanged() with the range and offset under the cursor; the
// owner looks the object and the entries up off the GUI thread and hands the
// text back with setHoverDetails(), which refreshes the tooltip if the cursor
// is still there.
#pragma once
#include "ui/gc/PackStripData.h"

#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

namespace ui {

class PackStripWidget : public QWidget {
    Q_OBJECT
public:
    explicit PackStripWidget(QWidget* parent = nullptr);

    void setData(std::shared_ptr<const PackStripData> data);
    const std::shared_ptr<const PackStripData>& data() const { return data_; }
    // Byte totals of what is shown (the ranges given to setData).
    uint64_t liveBytes() const { return data_ ? data_->liveBytes : 0; }
    uint64_t deadBytes() const { return data_ ? data_->deadBytes : 0; }

    // The visible span of logical offsets [viewStart, viewStart + viewSpan).
    uint64_t viewStart() const { return viewStart_; }
    uint64_t viewSpan() const { return viewSpan_; }
    void setView(uint64_t start, uint64_t span);
    void zoomBy(double factor, int anchorX);   // factor > 1 zooms in
    void zoomIn();
    void zoomOut();
    void zoomToFit();

    struct Hover {
        PackStripData::Hit hit;
        uint64_t offset = 0;     // byte under the cursor, inside hit.range
        bool operator==(const Hover&) const = default;
    };
    std::optional<Hover> hoverAt(int x) const;
    // Shows details for a hover the owner looked up (ignored when the cursor moved on).
    void setHoverDetails(const Hover& hover, const QString& html);

    // Per pixel column of the strip: live and dead bytes (for tests and export).
    struct Column {
        uint64_t live = 0, dead = 0, tail = 0;   // tail: at or above the split (kept as is)
    };
    const std::vector<Column>& columns() const { return columns_; }
    int stripWidth() const;

    // Strip, axis and legend at any size (PNG/PDF/SVG export).
    void paintContents(QPainter& painter, const QSize& size) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void hoverChanged(const ui::PackStripWidget::Hover& hover);
    void viewChanged(uint64_t start, uint64_t span);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QRect stripRect(const QSize& size) const;
    void rebuildColumns();
    QImage renderColumns(const std::vector<Column>& columns, int height, uint64_t start, uint64_t span) const;
    std::vector<Column> summarise(int width, uint64_t start, uint64_t span) const;
    void paintAxis(QPainter& painter, const QRect& axis, uint64_t start, uint64_t span) const;
    void paintLegend(QPainter& painter, const QRect& legend) const;
    void showTooltip(const QString& html);

    std::shared_ptr<const PackStripData> data_;
    uint64_t viewStart_ = 0;
    uint64_t viewSpan_ = 0;
    std::vector<Column> columns_;
    QImage image_;                 // columns_ rendered at the strip's size
    std::optional<Hover> hover_;
    QString hoverHtml_;
    QPoint lastPos_;
    bool dragging_ = false;
    int dragX_ = 0;
    uint64_t dragStart_ = 0;
};

} // namespace ui

Q_DECLARE_METATYPE(ui::PackStripWidget::Hover)
