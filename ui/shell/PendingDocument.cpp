#include "ui/shell/PendingDocument.h"

#include <QDir>
#include <QPainter>

namespace ui {

PendingDocument::PendingDocument(const QString& path, QWidget* parent)
    : QWidget(parent), path_(path), text_(tr("%1 is read when this tab is shown.").arg(QDir::toNativeSeparators(path)))
{
}

void PendingDocument::showError(const QString& message)
{
    text_ = message;
    update();
}

void PendingDocument::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, text_);
}

} // namespace ui
