#include "ui/actions/EntryTreemap.h"

#include "core/util/Units.h"
#include "ui/actions/EntryTreeModel.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace ui {

namespace {

constexpr size_t kMaxTiles = 400;       // tiles of the current folder; the rest are not drawn
constexpr size_t kMaxInnerTiles = 64;   // tiles inside each folder's tile

// Squarified treemap (Bruls, Huizing, van Wijk): lay out values (sorted
// largest first) in rows along the shorter side, adding to a row while the
// worst aspect ratio improves.
void squarify(const std::vector<double>& values, QRectF rect, std::vector<QRectF>& out)
{
    out.assign(values.size(), QRectF());
    double total = 0;
    for (double v : values)
        total += v;
    size_t i = 0;
    while (i < values.size() && rect.width() > 0 && rect.height() > 0 && total > 0) {
        const double area = rect.width() * rect.height();
        const double side = std::min(rect.width(), rect.height());
        const auto worst = [&](size_t from, size_t to, double sum) {
            const double s = sum / total * area;
            double w = 0;
            for (size_t k = from; k < to; ++k) {
                const double a = values[k] / total * area;
                w = std::max(w, std::max(side * side * a / (s * s), s * s / (side * side * a)));
            }
            return w;
        };
        size_t end = i + 1;
        double sum = values[i];
        while (end < values.size() && worst(i, end + 1, sum + values[end]) <= worst(i, end, sum)) {
            sum += values[end];
            ++end;
        }
        const double thickness = sum / total * area / side;
        double at = 0;
        const bool horizontal = rect.width() >= rect.height();   // a column on the left, or a row on top
        for (size_t k = i; k < end; ++k) {
            const double len = values[k] / sum * side;
            out[k] = horizontal ? QRectF(rect.left(), rect.top() + at, thickness, len)
                                : QRectF(rect.left() + at, rect.top(), len, thickness);
            at += len;
        }
        rect = horizontal ? rect.adjusted(thickness, 0, 0, 0) : rect.adjusted(0, thickness, 0, 0);
        total -= sum;
        i = end;
    }
}

} // namespace

EntryTreemap::EntryTreemap(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(200, 120);
}

void EntryTreemap::setTree(EntryTreePtr tree)
{
    tree_ = std::move(tree);
    // An archive of cached paths mostly has one or two folders at its top
    // ("node_modules", "home/runner/.cache/pip"): start at the first folder
    // that holds more than one thing, so the first look shows something.
    root_ = 0;
    while (tree_ && tree_->nodes[size_t(root_)].children.size() == 1) {
        const int only = tree_->nodes[size_t(root_)].children.front();
        if (tree_->nodes[size_t(only)].type != cs::entries::MemberType::Folder)
            break;
        root_ = only;
    }
    layoutTiles();
    update();
}

void EntryTreemap::setRoot(int node)
{
    if (!tree_ || node < 0 || size_t(node) >= tree_->nodes.size() ||
        tree_->nodes[size_t(node)].type != cs::entries::MemberType::Folder)
        return;
    root_ = node;
    layoutTiles();
    update();
    Q_EMIT rootChanged(node);
}

QRect EntryTreemap::pathBar() const
{
    return QRect(0, 0, width(), fontMetrics().height() + 8);
}

void EntryTreemap::layoutChildren(int node, const QRectF& rect, size_t maxTiles,
                                  std::vector<std::pair<int, QRectF>>& out) const
{
    std::vector<double> values;
    std::vector<int> nodes;
    for (int c : tree_->nodes[size_t(node)].children) {
        if (tree_->nodes[size_t(c)].bytes == 0)
            break;   // children are sorted largest first: the rest are empty too
        if (nodes.size() == maxTiles)
            break;
        nodes.push_back(c);
        values.push_back(double(tree_->nodes[size_t(c)].bytes));
    }
    std::vector<QRectF> rects;
    squarify(values, rect, rects);
    for (size_t i = 0; i < nodes.size(); ++i)
        out.emplace_back(nodes[i], rects[i]);
}

void EntryTreemap::layoutTiles()
{
    tiles_.clear();
    inner_.clear();
    hasInner_.clear();
    if (!tree_)
        return;
    layoutChildren(root_, QRectF(rect().adjusted(1, pathBar().height() + 1, -1, -1)), kMaxTiles, tiles_);
    // One level down inside each folder tile, below its label, when the
    // tile has room for it.
    const double label = fontMetrics().height() + 4;
    hasInner_.assign(tiles_.size(), false);
    for (size_t i = 0; i < tiles_.size(); ++i) {
        const auto& [n, r] = tiles_[i];
        if (tree_->nodes[size_t(n)].type != cs::entries::MemberType::Folder)
            continue;
        const QRectF inside = r.adjusted(3, label, -3, -3);
        const size_t before = inner_.size();
        if (inside.width() >= 24 && inside.height() >= 16)
            layoutChildren(n, inside, kMaxInnerTiles, inner_);
        hasInner_[i] = inner_.size() > before;
    }
}

int EntryTreemap::tileAt(const QPoint& pos) const
{
    for (const auto& [node, r] : tiles_)
        if (r.contains(pos))
            return node;
    return -1;
}

void EntryTreemap::resizeEvent(QResizeEvent*)
{
    layoutTiles();
}

void EntryTreemap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect bar = pathBar();
    p.fillRect(bar, palette().alternateBase());
    p.setPen(palette().text().color());
    if (!tree_) {
        p.drawText(rect(), Qt::AlignCenter, tr("No contents loaded"));
        return;
    }
    const auto& root = tree_->nodes[size_t(root_)];
    const QString where = root_ == 0 ? tr("All folders") : shownName(tree_->path(root_));
    p.drawText(bar.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
               (root_ == 0 ? QString() : QStringLiteral("▲ ")) + where + QStringLiteral(" · ") +
                   QString::fromStdString(cs::formatSize(root.bytes)) +
                   (root_ == 0 ? QString() : tr("  (click here or right-click to go up)")));
    if (tiles_.empty()) {
        p.drawText(rect().adjusted(0, bar.height(), 0, 0), Qt::AlignCenter, tr("Nothing below this folder holds bytes"));
        return;
    }
    const QColor folderBase = palette().highlight().color();
    for (size_t i = 0; i < tiles_.size(); ++i) {
        const auto& [n, r] = tiles_[i];
        const auto& node = tree_->nodes[size_t(n)];
        const bool folder = node.type == cs::entries::MemberType::Folder;
        QColor c = folder ? folderBase : palette().mid().color();
        c = i % 2 ? c.lighter(118) : c;
        p.fillRect(r, c);
        p.setPen(palette().base().color());
        p.drawRect(r);
        if (r.width() > 40 && r.height() > fontMetrics().height() + 4) {
            p.setPen(folder ? palette().highlightedText().color() : palette().text().color());
            const bool hasInner = hasInner_[i];
            // A folder with its children drawn inside: its label on one line above them.
            const QString label = shownName(node.name) + (hasInner ? QStringLiteral(" · ") : QStringLiteral("\n")) +
                                  QString::fromStdString(cs::formatSize(node.bytes));
            const int flags = Qt::AlignLeft | Qt::AlignTop | (hasInner ? Qt::TextSingleLine : Qt::TextWordWrap);
            p.drawText(r.adjusted(4, 2, -4, -2), flags,
                       hasInner ? fontMetrics().elidedText(label, Qt::ElideRight, int(r.width()) - 8) : label);
        }
    }
    // The children inside the folder tiles: lighter, a thin frame, a label
    // where it fits.
    for (size_t i = 0; i < inner_.size(); ++i) {
        const auto& [n, r] = inner_[i];
        const auto& node = tree_->nodes[size_t(n)];
        const bool folder = node.type == cs::entries::MemberType::Folder;
        QColor c = folder ? folderBase.lighter(135) : palette().mid().color().lighter(125);
        c = i % 2 ? c.lighter(110) : c;
        p.fillRect(r, c);
        p.setPen(palette().base().color());
        p.drawRect(r);
        // Name and size on a line each, where the size fits; the name elided.
        const QString size = QString::fromStdString(cs::formatSize(node.bytes));
        const QRectF text = r.adjusted(3, 1, -3, -1);
        if (text.width() >= fontMetrics().horizontalAdvance(size) && text.height() >= 2 * fontMetrics().height()) {
            p.setPen(palette().text().color());
            const int line = fontMetrics().height();
            p.drawText(QRectF(text.left(), text.top(), text.width(), line), Qt::AlignLeft | Qt::AlignTop,
                       fontMetrics().elidedText(shownName(node.name), Qt::ElideRight, int(text.width())));
            p.drawText(QRectF(text.left(), text.top() + line, text.width(), line), Qt::AlignLeft | Qt::AlignTop, size);
        }
    }
}

void EntryTreemap::mousePressEvent(QMouseEvent* event)
{
    if (!tree_)
        return;
    if (event->button() == Qt::RightButton || pathBar().contains(event->position().toPoint())) {
        if (root_ != 0)
            setRoot(tree_->nodes[size_t(root_)].parent);
        return;
    }
    const int n = tileAt(event->position().toPoint());
    if (n > 0 && tree_->nodes[size_t(n)].type == cs::entries::MemberType::Folder)
        setRoot(n);
}

bool EntryTreemap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && tree_) {
        auto* help = static_cast<QHelpEvent*>(event);
        // The innermost tile under the pointer: a child drawn inside a folder's tile, else the tile.
        int n = tileAt(help->pos());
        for (const auto& [inner, r] : inner_)
            if (r.contains(help->pos()))
                n = inner;
        if (n > 0) {
            const auto& node = tree_->nodes[size_t(n)];
            QToolTip::showText(help->globalPos(), shownName(tree_->path(n)) + QStringLiteral("\n") +
                                                      QString::fromStdString(cs::formatSize(node.bytes)) +
                                                      tr(", %n file(s)", nullptr, int(node.files)));
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace ui
