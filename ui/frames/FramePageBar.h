// The line above a frame table that moves between its pages (a file of more
// frames than FrameTableModel::pageRows() is shown a page at a time): "Frames
// 262,145–524,288 of 10,000,001" with the previous and next page. Hidden
// while the table has one page.
#pragma once
#include <QWidget>

class QLabel;
class QToolButton;

namespace ui {
class FrameTableModel;

class FramePageBar : public QWidget {
    Q_OBJECT
public:
    explicit FramePageBar(FrameTableModel* model, QWidget* parent = nullptr);

    QString text() const;
    QToolButton* previousButton() const { return previous_; }
    QToolButton* nextButton() const { return next_; }

private:
    void refresh();

    FrameTableModel* model_;
    QLabel* label_;
    QToolButton* previous_;
    QToolButton* next_;
};

} // namespace ui
