// The file drawn as a horizontal band of its frames to scale, coloured by
// category (see FrameCategory.h), with an offset axis and a legend with the
// count of each category. A frame narrower than a pixel still gets one pixel;
// wide neighbours alternate two shades so their boundaries show. Hover shows
// the frame's details; a click emits frameClicked(position in the vector).
// A file of many frames (FrameDigest::kMaxFramesDrawnOneByOne) is drawn from
// the digest's bins instead, one colour per pixel (the category with the most
// bytes there, or a small frame other than zstd data when the pixel has one):
// painting costs the width, not the frame count.
#pragma once
#include "core/frames/PackedFrames.h"
#include "ui/frames/FrameDigest.h"

#include <QPixmap>
#include <QWidget>

#include <array>
#include <memory>
#include <vector>

namespace ui {

class FrameBandWidget : public QWidget {
    Q_OBJECT
public:
    explicit FrameBandWidget(QWidget* parent = nullptr);

    void setFrames(std::shared_ptr<const cs::PackedFrames> frames, std::shared_ptr<const FrameDigest> digest);
    void setSelectedFrame(int frameIndex);   // position in the vector, -1 for none
    int selectedFrame() const { return selected_; }

    // Frame under a widget x coordinate, -1 if none.
    int frameAtX(int x) const;
    // Paints band, axis and legend into any painter (used for PNG/PDF/SVG export).
    void paintContents(QPainter& painter, const QSize& size) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void frameClicked(int frameIndex);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Geometry {
        QRect band;
        QRect axis;
        QRect legend;
    };
    Geometry geometryFor(const QSize& size) const;
    void paintBand(QPainter& painter, const QRect& band) const;
    void paintFrames(QPainter& painter, const QRect& band) const;
    void paintBins(QPainter& painter, const QRect& band) const;
    void paintAxis(QPainter& painter, const QRect& axis) const;
    void paintLegend(QPainter& painter, const QRect& legend) const;
    QRect frameRect(const QRect& band, size_t frameIndex) const;

    std::shared_ptr<const cs::PackedFrames> frames_;
    std::shared_ptr<const FrameDigest> digest_;
    uint64_t fileSize_ = 0;
    int selected_ = -1;
    mutable QPixmap bandCache_;   // the band at the widget's size; rebuilt on resize, data or palette change
};

} // namespace ui
