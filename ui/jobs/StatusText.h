// One line of status text that changes often (a job's step and time left):
// painted elided to the width it is given, the whole of it in the tooltip.
// Unlike a QLabel, a new text never asks the layouts above for a new size:
// QLabel::setText calls updateGeometry(), and every progress tick then
// re-laid out the view holding it, with each word-wrapped label of every
// page of a tab stack asked its height for its width (36 % of the GUI
// thread while an entry's Contents filled, issue 26).
#pragma once
#include <QWidget>

namespace ui {

class StatusText : public QWidget {
    Q_OBJECT
public:
    explicit StatusText(QWidget* parent = nullptr);

    QString text() const { return text_; }
    void setText(const QString& text);   // repaints this line only

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QString text_;
};

} // namespace ui
