#include "ui/gc/PackStripWidget.h"
#include "ui/shell/Plural.h"

#include "ui/gc/GcFormat.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {
constexpr int kMargin = 8;
constexpr int kStripHeight = 56;
constexpr int kAxisHeight = 22;
constexpr int kLegendHeight = 22;
constexpr int kMinKindHeight = 4;   // a kind present in a column gets at least this many pixels

QColor liveColor() { return QColor(0x3a, 0xa6, 0x5c); }
QColor deadColor() { return QColor(0xe0, 0x52, 0x3a); }
QColor tailColor() { return QColor(0x4a, 0x7f, 0xc1); }
// Offsets no range covers (collected by an earlier GC): the base colour tinted towards the text.
QColor absentColor(const QPalette& p)
{
    const QColor b = p.color(QPalette::Base), t = p.color(QPalette::Text);
    return QColor((b.red() * 5 + t.red()) / 6, (b.green() * 5 + t.green()) / 6, (b.blue() * 5 + t.blue()) / 6);
}
} // namespace

PackStripWidget::PackStripWidget(QWidget* parent) : QWidget(parent)
{
    static const int registered = qRegisterMetaType<ui::PackStripWidget::Hover>();
    Q_UNUSED(registered);
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setCursor(Qt::OpenHandCursor);
}

QSize PackStripWidget::sizeHint() const
{
    return {900, kMargin + kStripHeight + kAxisHeight + kLegendHeight + kMargin};
}

QSize PackStripWidget::minimumSizeHint() const
{
    return {200, sizeHint().height()};
}

QRect PackStripWidget::stripRect(const QSize& size) const
{
    return QRect(kMargin, kMargin, std::max(1, size.width() - 2 * kMargin), kStripHeight);
}

int PackStripWidget::stripWidth() const
{
    return stripRect(size()).width();
}

void PackStripWidget::setData(std::shared_ptr<const PackStripData> data)
{
    const bool sameExtent = data_ && data && data_->end == data->end;
    data_ = std::move(data);
    hover_.reset();
    if (sameExtent)
        setView(viewStart_, viewSpan_);   // a refresh keeps the zoom
    else
        zoomToFit();
}

void PackStripWidget::setView(uint64_t start, uint64_t span)
{
    const uint64_t end = data_ ? data_->end : 0;
    const uint64_t minSpan = std::min<uint64_t>(end, uint64_t(std::max(1, stripWidth())));
    span = std::clamp<uint64_t>(span, minSpan, end);
    start = std::min(start, end - span);
    viewStart_ = start;
    viewSpan_ = span;
    rebuildColumns();
    Q_EMIT viewChanged(viewStart_, viewSpan_);
}

void PackStripWidget::zoomBy(double factor, int anchorX)
{
    if (!data_ || viewSpan_ == 0)
        return;
    const QRect strip = stripRect(size());
    const double rel = std::clamp(double(anchorX - strip.left()) / double(strip.width()), 0.0, 1.0);
    const double anchor = double(viewStart_) + rel * double(viewSpan_);
    const double span = std::max(1.0, double(viewSpan_) / factor);
    const double start = std::max(0.0, anchor - rel * span);
    setView(uint64_t(start), uint64_t(std::llround(span)));
}

void PackStripWidget::zoomIn()
{
    zoomBy(2.0, stripRect(size()).center().x());
}

void PackStripWidget::zoomOut()
{
    zoomBy(0.5, stripRect(size()).center().x());
}

void PackStripWidget::zoomToFit()
{
    setView(0, data_ ? data_->end : 0);
}

std::vector<PackStripWidget::Column> PackStripWidget::summarise(int width, uint64_t start, uint64_t span) const
{
    std::vector<Column> cols(size_t(std::max(0, width)));
    if (!data_ || span == 0 || width <= 0)
        return cols;
    const double perPixel = double(span) / double(width);
    for (int c = 0; c < width; ++c) {
        const uint64_t a = start + uint64_t(std::floor(c * perPixel));
        const uint64_t b = c + 1 == width ? start + span : start + uint64_t(std::floor((c + 1) * perPixel));
        Column& col = cols[size_t(c)];
        col.live = data_->liveIn(a, b);
        col.dead = data_->deadIn(a, b);
        const uint64_t t0 = std::max(a, data_->split);
        col.tail = b > t0 ? b - t0 : 0;
    }
    return cols;
}

QImage PackStripWidget::renderColumns(const std::vector<Column>& columns, int height, uint64_t start,
                                      uint64_t span) const
{
    QImage img(int(columns.size()), height, QImage::Format_RGB32);
    img.fill(absentColor(palette()));
    if (columns.empty() || span == 0)
        return img;
    const double perPixel = double(span) / double(columns.size());
    const QRgb live = liveColor().rgb(), dead = deadColor().rgb(), tail = tailColor().rgb();
    for (int c = 0; c < int(columns.size()); ++c) {
        const Column& col = columns[size_t(c)];
        const double total = std::max(perPixel, 1.0);
        auto heightOf = [&](uint64_t bytes) {
            if (bytes == 0)
                return 0;
            return std::clamp(int(std::lround(height * double(bytes) / total)), kMinKindHeight, height);
        };
        int hl = heightOf(col.live), hd = heightOf(col.dead), ht = heightOf(col.tail);
        // Scale down when the minimum heights overflow the column, keeping every kind visible.
        while (hl + hd + ht > height) {
            if (hl >= hd && hl >= ht && hl > 1) --hl;
            else if (hd >= ht && hd > 1) --hd;
            else if (ht > 1) --ht;
            else break;
        }
        int y = 0;
        auto fill = [&](int h, QRgb color) {
            for (int i = 0; i < h && y < height; ++i, ++y)
                reinterpret_cast<QRgb*>(img.scanLine(y))[c] = color;
        };
        fill(hl, live);
        fill(hd, dead);
        fill(ht, tail);
    }
    return img;
}

void PackStripWidget::rebuildColumns()
{
    const QRect strip = stripRect(size());
    columns_ = summarise(strip.width(), viewStart_, viewSpan_);
    image_ = renderColumns(columns_, strip.height(), viewStart_, viewSpan_);
    update();
}

void PackStripWidget::paintAxis(QPainter& painter, const QRect& axis, uint64_t start, uint64_t span) const
{
    painter.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(painter.font());
    const int ticks = std::clamp(axis.width() / 150, 1, 8);
    for (int t = 0; t <= ticks; ++t) {
        const int x = axis.left() + int(double(axis.width() - 1) * t / ticks);
        painter.drawLine(x, axis.top(), x, axis.top() + 4);
        const uint64_t at = start + uint64_t(double(span) * t / ticks);
        const QString label = span < 1u << 20 ? gcfmt::count(at) : gcfmt::size(at);
        const int w = fm.horizontalAdvance(label);
        const int lx = std::clamp(x - w / 2, axis.left(), std::max(axis.left(), axis.right() - w));
        painter.drawText(QRect(lx, axis.top() + 5, w + 2, fm.height()), Qt::AlignLeft | Qt::AlignTop, label);
    }
}

void PackStripWidget::paintLegend(QPainter& painter, const QRect& legend) const
{
    const QFontMetrics fm(painter.font());
    const int box = fm.height() - 4;
    const int y = legend.top() + (legend.height() - fm.height()) / 2;
    int x = legend.left();
    auto item = [&](const QColor& color, const QString& label) {
        painter.fillRect(QRect(x, y + 2, box, box), color);
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawRect(QRect(x, y + 2, box - 1, box - 1));
        painter.setPen(palette().color(QPalette::Text));
        const int w = fm.horizontalAdvance(label);
        painter.drawText(QRect(x + box + 4, y, w + 2, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
        x += box + 4 + w + 18;
    };
    if (!data_) {
        item(absentColor(palette()), tr("no data yet"));
        return;
    }
    item(liveColor(), tr("live %1 in %2").arg(gcfmt::size(data_->liveBytes), counted(qint64(data_->live.size()), "range", "ranges")));
    item(deadColor(), tr("dead %1 in %2").arg(gcfmt::size(data_->deadBytes), counted(qint64(data_->dead.size()), "range", "ranges")));
    if (data_->end > data_->split)
        item(tailColor(), tr("after the split %1").arg(gcfmt::size(data_->end - data_->split)));
    item(absentColor(palette()), tr("collected earlier"));
}

void PackStripWidget::paintContents(QPainter& painter, const QSize& size) const
{
    const QRect strip = stripRect(size);
    const QRect axis(strip.left(), strip.bottom() + 1, strip.width(), kAxisHeight);
    const QRect legend(strip.left(), axis.bottom() + 1, strip.width(), kLegendHeight);
    painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Window));
    if (!data_ || viewSpan_ == 0) {
        painter.fillRect(strip, palette().color(QPalette::Base));
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(strip, Qt::AlignCenter, data_ ? tr("The pack is empty") : tr("Waiting for the dry run…"));
    } else if (size == this->size()) {
        painter.drawImage(strip.topLeft(), image_);
    } else {
        painter.drawImage(strip.topLeft(), renderColumns(summarise(strip.width(), viewStart_, viewSpan_), strip.height(),
                                                         viewStart_, viewSpan_));
    }
    if (data_ && viewSpan_ > 0) {
        if (data_->split > viewStart_ && data_->split < viewStart_ + viewSpan_ && data_->split < data_->end) {
            const int x = strip.left() + int(double(data_->split - viewStart_) / double(viewSpan_) * strip.width());
            painter.setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
            painter.drawLine(x, strip.top() - 4, x, strip.bottom() + 4);
        }
        paintAxis(painter, axis, viewStart_, viewSpan_);
    }
    painter.setPen(palette().color(QPalette::Mid));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(strip.adjusted(-1, -1, 0, 0));
    paintLegend(painter, legend);
}

void PackStripWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintContents(painter, size());
    if (hover_ && data_ && viewSpan_) {
        const QRect strip = stripRect(size());
        const auto& r = hover_->hit.range;
        const double scale = double(strip.width()) / double(viewSpan_);
        const double x0 = (double(std::max(r.offset, viewStart_)) - double(viewStart_)) * scale;
        const double x1 = (double(std::min(r.end(), viewStart_ + viewSpan_)) - double(viewStart_)) * scale;
        const int left = strip.left() + int(std::floor(x0));
        const int width = std::max(1, int(std::ceil(x1)) - int(std::floor(x0)));
        painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
        painter.drawRect(QRect(left, strip.top() - 2, width, strip.height() + 3));
    }
}

void PackStripWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (data_)
        setView(viewStart_, viewSpan_ ? viewSpan_ : data_->end);
}

void PackStripWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        rebuildColumns();
    QWidget::changeEvent(event);
}

std::optional<PackStripWidget::Hover> PackStripWidget::hoverAt(int x) const
{
    const QRect strip = stripRect(size());
    if (!data_ || viewSpan_ == 0 || x < strip.left() || x > strip.right())
        return std::nullopt;
    const double perPixel = double(viewSpan_) / double(strip.width());
    const int c = x - strip.left();
    const uint64_t from = viewStart_ + uint64_t(std::floor(c * perPixel));
    const uint64_t to = std::max(from + 1, viewStart_ + uint64_t(std::floor((c + 1) * perPixel)));
    const uint64_t centre = viewStart_ + uint64_t((c + 0.5) * perPixel);
    const auto hit = data_->rangeNear(centre, from, to);
    if (!hit)
        return std::nullopt;
    Hover h;
    h.hit = *hit;
    h.offset = std::clamp(centre, hit->range.offset, hit->range.end() - 1);
    return h;
}

void PackStripWidget::setHoverDetails(const Hover& hover, const QString& html)
{
    if (!hover_ || !(*hover_ == hover))
        return;
    hoverHtml_ = html;
    showTooltip(html);
}

void PackStripWidget::showTooltip(const QString& html)
{
    if (isVisible())
        QToolTip::showText(mapToGlobal(lastPos_), html, this, stripRect(size()));
}

void PackStripWidget::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = delta.x() ? delta.x() : delta.y();
        const double shift = -double(d) / 120.0 * 0.1 * double(viewSpan_);
        const double start = std::max(0.0, double(viewStart_) + shift);
        setView(uint64_t(start), viewSpan_);
    } else if (delta.y() != 0) {
        zoomBy(std::pow(1.25, double(delta.y()) / 120.0), int(event->position().x()));
    }
    event->accept();
}

void PackStripWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        dragging_ = true;
        dragX_ = int(event->position().x());
        dragStart_ = viewStart_;
        setCursor(Qt::ClosedHandCursor);
    }
    QWidget::mousePressEvent(event);
}

void PackStripWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        dragging_ = false;
        setCursor(Qt::OpenHandCursor);
    }
    QWidget::mouseReleaseEvent(event);
}

void PackStripWidget::mouseMoveEvent(QMouseEvent* event)
{
    const int x = int(event->position().x());
    lastPos_ = event->position().toPoint();
    if (dragging_ && viewSpan_) {
        const double perPixel = double(viewSpan_) / double(stripWidth());
        const double start = std::max(0.0, double(dragStart_) - (x - dragX_) * perPixel);
        setView(uint64_t(start), viewSpan_);
        return;
    }
    const auto h = stripRect(size()).adjusted(0, -2, 0, 2).contains(event->position().toPoint()) ? hoverAt(x)
                                                                                               : std::nullopt;
    if (h == hover_)
        return;
    const bool sameRange = h && hover_ && h->hit == hover_->hit;
    hover_ = h;
    if (!sameRange)
        update();
    if (!h) {
        QToolTip::hideText();
        return;
    }
    const auto& r = h->hit.range;
    hoverHtml_ = tr("<b>%1 range</b> %2 – %3 (%4)<br>offset %5<br><i>looking up the object…</i>")
                     .arg(h->hit.live ? tr("Live") : tr("Dead"), gcfmt::count(r.offset), gcfmt::count(r.end()),
                          gcfmt::size(r.length), gcfmt::offset(h->offset));
    showTooltip(hoverHtml_);
    Q_EMIT hoverChanged(*h);
}

void PackStripWidget::leaveEvent(QEvent* event)
{
    hover_.reset();
    dragging_ = false;
    update();
    QWidget::leaveEvent(event);
}

} // namespace ui
