#include "ui/shell/PendingDocument.h"

#include <QDir>
#include <QLabel>
#include <QVBoxLayout>

namespace ui {

PendingDocument::PendingDocument(const QString& path, QWidget* parent)
    : QWidget(parent), path_(path), label_(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    label_->setAlignment(Qt::AlignCenter);
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setText(tr("%1 is read when this tab is shown.").arg(QDir::toNativeSeparators(path)));
    layout->addWidget(label_);
}

void PendingDocument::showError(const QString& message)
{
    label_->setText(message);
}

} // namespace ui
