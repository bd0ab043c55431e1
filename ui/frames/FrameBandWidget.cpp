#include "ui/frames/FrameBandWidget.h"

#include "ui/frames/FrameCategory.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>

namespace ui {

namespace {
constexpr int kMargin = 8;
constexpr int kBandHeight = 44;
constexpr int kAxisHeight = 22;
constexpr int kLegendHeight = 22;
constexpr int kMinDistinctWidth = 4;   // wider frames alternate shades and get a separator

QColor shadeFor(FrameCategory c, bool alternate)
{
    const QColor base = frameCategoryColor(c);
    return alternate ? base.lighter(125) : base;
}
} // namespace

FrameBandWidget::FrameBandWidget(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize FrameBandWidget::sizeHint() const
{
    return {800, kMargin + kBandHeight + kAxisHeight + kLegendHeight + kMargin};
}

QSize FrameBandWidget::minimumSizeHint() const
{
    return {200, sizeHint().height()};
}

void FrameBandWidget::setFrames(std::shared_ptr<const cs::PackedFrames> frames, std::shared_ptr<const FrameDigest> digest)
{
    frames_ = std::move(frames);
    digest_ = std::move(digest);
    fileSize_ = digest_ ? digest_->fileSize : 0;
    if (frames_)
        fileSize_ = std::max(fileSize_, frames_->end());
    selected_ = -1;
    bandCache_ = QPixmap();
    update();
}

void FrameBandWidget::setSelectedFrame(int frameIndex)
{
    if (selected_ == frameIndex)
        return;
    selected_ = frameIndex;
    update();
}

FrameBandWidget::Geometry FrameBandWidget::geometryFor(const QSize& size) const
{
    Geometry g;
    const int width = std::max(1, size.width() - 2 * kMargin);
    g.band = QRect(kMargin, kMargin, width, kBandHeight);
    g.axis = QRect(kMargin, g.band.bottom() + 1, width, kAxisHeight);
    g.legend = QRect(kMargin, g.axis.bottom() + 1, width, kLegendHeight);
    return g;
}

QRect FrameBandWidget::frameRect(const QRect& band, size_t i) const
{
    const uint64_t offset = frames_->offsetAt(i);
    const double scale = fileSize_ ? double(band.width()) / double(fileSize_) : 0;
    const int x0 = band.left() + int(std::floor(double(offset) * scale));
    const int x1 = band.left() + int(std::ceil(double(offset + frames_->compressedSizeAt(i)) * scale));
    return QRect(x0, band.top(), std::max(1, x1 - x0), band.height());
}

int FrameBandWidget::frameAtX(int x) const
{
    if (!frames_ || frames_->empty() || fileSize_ == 0)
        return -1;
    const QRect band = geometryFor(size()).band;
    if (x < band.left() || x > band.right())
        return -1;
    const cs::PackedFrames& frames = *frames_;
    const double bytesPerPixel = double(fileSize_) / double(band.width());
    const double pixelStart = (x - band.left()) * bytesPerPixel;
    const double pixelEnd = pixelStart + bytesPerPixel;
    const uint64_t centre = uint64_t(pixelStart + bytesPerPixel / 2);
    const size_t best = frames.frameHolding(centre);
    // Small non-zstd frames are painted over their pixels (see paintBand), so they win them.
    // They may be drawn two pixels wide, so look one pixel back too. A pixel of
    // thousands of frames is searched only so far: its colour says what it holds.
    constexpr size_t kMaxLook = 4096;
    const double from = std::max(0.0, pixelStart - bytesPerPixel);
    size_t i = frames.frameHolding(uint64_t(from));
    for (size_t looked = 0; i < frames.size() && double(frames.offsetAt(i)) < pixelEnd && looked < kMaxLook; ++i, ++looked)
        if (frames.kindAt(i) != cs::FrameKind::Zstd && double(frames.compressedSizeAt(i)) / bytesPerPixel < kMinDistinctWidth)
            return int(i);
    return int(best);
}

void FrameBandWidget::paintBand(QPainter& painter, const QRect& band) const
{
    painter.fillRect(band, palette().color(QPalette::Base));
    if (!frames_ || frames_->empty() || fileSize_ == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(band, Qt::AlignCenter, frames_ ? tr("No frames") : tr("Scanning…"));
        return;
    }
    if (digest_ && !digest_->bins.empty())
        paintBins(painter, band);
    else
        paintFrames(painter, band);
    painter.setPen(palette().color(QPalette::Mid));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(band.adjusted(-1, -1, 0, 0));  // outside the band: edge frames keep their pixels
}

void FrameBandWidget::paintFrames(QPainter& painter, const QRect& band) const
{
    const cs::PackedFrames& frames = *frames_;
    // Consecutive frames of one colour that share pixels merge into one run.
    QRect run;
    QColor runColor;
    auto flush = [&] {
        if (run.isValid())
            painter.fillRect(run, runColor);
        run = QRect();
    };
    size_t special = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        const QRect r = frameRect(band, i);
        const bool distinct = r.width() >= kMinDistinctWidth;
        const QColor color = shadeFor(frameCategoryAt(frames, i), distinct && (i % 2 == 1));
        special += frames.kindAt(i) != cs::FrameKind::Zstd;
        if (run.isValid() && color == runColor && r.left() <= run.right() + 1) {
            run.setRight(std::max(run.right(), r.right()));
        } else {
            flush();
            run = r;
            runColor = color;
        }
    }
    flush();
    // Small frames other than zstd data (size frames, seek tables) on top:
    // two pixels while they are few, one when they are dense.
    const int minWidth = special * 8 < size_t(band.width()) ? 2 : 1;
    for (size_t i = 0; i < frames.size(); ++i)
        if (frames.kindAt(i) != cs::FrameKind::Zstd) {
            QRect r = frameRect(band, i);
            if (r.width() < kMinDistinctWidth) {
                if (r.width() < minWidth)
                    r.setWidth(minWidth);
                if (r.right() > band.right())
                    r.moveRight(band.right());
                painter.fillRect(r, frameCategoryColor(frameCategoryAt(frames, i)));
            }
        }
}

void FrameBandWidget::paintBins(QPainter& painter, const QRect& band) const
{
    const auto& bins = digest_->bins;
    const int width = band.width();
    constexpr std::array special{FrameCategory::Skippable, FrameCategory::SeekTable, FrameCategory::PzstdSize};
    for (int x = 0; x < width; ++x) {
        const size_t first = size_t(double(x) * double(bins.size()) / width);
        const size_t last = std::max(first + 1, size_t(double(x + 1) * double(bins.size()) / width));
        std::array<uint64_t, kFrameCategoryCount> bytes{};
        std::array<uint64_t, kFrameCategoryCount> frames{};
        for (size_t b = first; b < std::min(last, bins.size()); ++b)
            for (int c = 0; c < kFrameCategoryCount; ++c) {
                bytes[size_t(c)] += bins[b].bytes[size_t(c)];
                frames[size_t(c)] += bins[b].frames[size_t(c)];
            }
        auto c = FrameCategory(std::max_element(bytes.begin(), bytes.end()) - bytes.begin());
        // A small frame other than zstd data wins its pixel, as when drawn one by one.
        for (FrameCategory s : special)
            if (frames[size_t(s)]) {
                c = s;
                break;
            }
        painter.fillRect(QRect(band.left() + x, band.top(), 1, band.height()), frameCategoryColor(c));
    }
}

void FrameBandWidget::paintAxis(QPainter& painter, const QRect& axis) const
{
    painter.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(painter.font());
    const int ticks = std::clamp(axis.width() / 140, 1, 8);
    for (int t = 0; t <= ticks; ++t) {
        const int x = axis.left() + int(double(axis.width() - 1) * t / ticks);
        painter.drawLine(x, axis.top(), x, axis.top() + 4);
        const QString label = sizeText(uint64_t(double(fileSize_) * t / ticks));
        const int w = fm.horizontalAdvance(label);
        int lx = x - w / 2;
        lx = std::clamp(lx, axis.left(), axis.right() - w);
        painter.drawText(QRect(lx, axis.top() + 5, w + 2, fm.height()), Qt::AlignLeft | Qt::AlignTop, label);
    }
}

void FrameBandWidget::paintLegend(QPainter& painter, const QRect& legend) const
{
    const QFontMetrics fm(painter.font());
    int x = legend.left();
    const int box = fm.height() - 4;
    const int y = legend.top() + (legend.height() - fm.height()) / 2;
    for (int c = 0; c < kFrameCategoryCount; ++c) {
        const auto category = FrameCategory(c);
        const uint64_t count = digest_ ? digest_->counts[size_t(c)] : 0;
        const QString label = QStringLiteral("%1 (%2)").arg(frameCategoryName(category), QLocale().toString(qulonglong(count)));
        painter.fillRect(QRect(x, y + 2, box, box), frameCategoryColor(category));
        painter.setPen(count ? palette().color(QPalette::Text) : palette().color(QPalette::PlaceholderText));
        const int w = fm.horizontalAdvance(label);
        painter.drawText(QRect(x + box + 4, y, w + 2, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
        x += box + 4 + w + 18;
    }
}

void FrameBandWidget::paintContents(QPainter& painter, const QSize& size) const
{
    const Geometry g = geometryFor(size);
    painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Window));
    paintBand(painter, g.band);
    if (frames_ && fileSize_) {
        paintAxis(painter, g.axis);
    }
    paintLegend(painter, g.legend);
}

void FrameBandWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const Geometry g = geometryFor(size());
    if (bandCache_.size() != size() * devicePixelRatioF() || bandCache_.isNull()) {
        bandCache_ = QPixmap(size() * devicePixelRatioF());
        bandCache_.setDevicePixelRatio(devicePixelRatioF());
        QPainter cache(&bandCache_);
        paintContents(cache, size());
    }
    painter.drawPixmap(0, 0, bandCache_);
    if (frames_ && selected_ >= 0 && size_t(selected_) < frames_->size()) {
        const QRect r = frameRect(g.band, size_t(selected_)).adjusted(-1, -3, 0, 2);
        painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r);
    }
}

void FrameBandWidget::resizeEvent(QResizeEvent* event)
{
    bandCache_ = QPixmap();
    QWidget::resizeEvent(event);
}

void FrameBandWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        bandCache_ = QPixmap();
        update();
    }
    QWidget::changeEvent(event);
}

void FrameBandWidget::mousePressEvent(QMouseEvent* event)
{
    const int i = frameAtX(int(event->position().x()));
    if (event->button() == Qt::LeftButton && i >= 0 && geometryFor(size()).band.contains(event->position().toPoint())) {
        setSelectedFrame(i);
        Q_EMIT frameClicked(i);
    }
    QWidget::mousePressEvent(event);
}

bool FrameBandWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = geometryFor(size()).band.contains(help->pos()) ? frameAtX(help->pos().x()) : -1;
        if (i >= 0)
            QToolTip::showText(help->globalPos(), frameDetails(frames_->at(size_t(i))), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace ui
