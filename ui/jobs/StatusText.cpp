#include "ui/jobs/StatusText.h"

#include <QEvent>
#include <QPainter>

namespace ui {

StatusText::StatusText(QWidget* parent) : QWidget(parent)
{
    // Its height is one line of its font, its width what the layout gives.
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void StatusText::setText(const QString& text)
{
    if (text == text_)
        return;
    text_ = text;
    setToolTip(text_);
    update();
}

QSize StatusText::sizeHint() const
{
    return {fontMetrics().horizontalAdvance(QLatin1Char('x')) * 12, fontMetrics().height()};
}

QSize StatusText::minimumSizeHint() const { return sizeHint(); }

void StatusText::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setPen(palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::WindowText));
    p.drawText(rect(), Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(text_, Qt::ElideRight, width()));
}

void StatusText::changeEvent(QEvent* event)
{
    // A new font changes the line's height: that one does ask for a new size.
    if (event->type() == QEvent::FontChange)
        updateGeometry();
    QWidget::changeEvent(event);
}

} // namespace ui
