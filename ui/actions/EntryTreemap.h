// The folders of an entry as a squarified treemap: the children of the
// current folder drawn as tiles with areas proportional to their bytes,
// labelled with name and size, and inside each folder's tile (when it is
// large enough) its own children, one level down, so the first look shows
// where the bytes are. A click anywhere on a folder's tile drills into it;
// a click on the path bar above (or a right click) goes back up.
#pragma once
#include "ui/actions/EntryTree.h"

#include <QRectF>
#include <QWidget>

#include <vector>

namespace ui {

class EntryTreemap : public QWidget {
    Q_OBJECT
public:
    explicit EntryTreemap(QWidget* parent = nullptr);
    // Shows tree from its first folder that holds more than one member.
    void setTree(EntryTreePtr tree);
    void setRoot(int node);
    int root() const { return root_; }
    // The tile under a widget position (a node index), -1 if none.
    int tileAt(const QPoint& pos) const;
    // Tiles of the current layout, for tests: node -> rectangle.
    const std::vector<std::pair<int, QRectF>>& tiles() const { return tiles_; }
    // The tiles drawn inside the folder tiles (their children).
    const std::vector<std::pair<int, QRectF>>& innerTiles() const { return inner_; }

    QSize sizeHint() const override { return {600, 360}; }

Q_SIGNALS:
    void rootChanged(int node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void layoutTiles();
    // Lays out node's children (largest first, at most kMaxTiles) in rect.
    void layoutChildren(int node, const QRectF& rect, size_t maxTiles, std::vector<std::pair<int, QRectF>>& out) const;
    QRect pathBar() const;

    EntryTreePtr tree_;
    int root_ = 0;
    std::vector<std::pair<int, QRectF>> tiles_;
    std::vector<std::pair<int, QRectF>> inner_;
    std::vector<bool> hasInner_;   // per tile: its children are drawn inside it
};

} // namespace ui
