#include "ui/frames/FramePageBar.h"

#include "ui/frames/FrameTableModel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QToolButton>

namespace ui {

FramePageBar::FramePageBar(FrameTableModel* model, QWidget* parent)
    : QWidget(parent), model_(model), label_(new QLabel(this)), previous_(new QToolButton(this)), next_(new QToolButton(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    previous_->setText(tr("Previous page"));
    next_->setText(tr("Next page"));
    layout->addWidget(label_, 1);
    layout->addWidget(previous_);
    layout->addWidget(next_);
    connect(previous_, &QToolButton::clicked, this, [this] {
        if (model_->page() > 0)
            model_->setPage(model_->page() - 1);
    });
    connect(next_, &QToolButton::clicked, this, [this] { model_->setPage(model_->page() + 1); });
    connect(model_, &FrameTableModel::pageChanged, this, &FramePageBar::refresh);
    refresh();
}

QString FramePageBar::text() const
{
    return label_->text();
}

void FramePageBar::refresh()
{
    const size_t pages = model_->pageCount();
    setVisible(pages > 1);
    const QLocale locale;
    const size_t first = model_->firstPositionShown();
    const size_t last = first + size_t(model_->rowCount());
    label_->setText(tr("Frames %1–%2 of %3 in the table's order (page %4 of %5)")
                        .arg(locale.toString(qulonglong(first + 1)), locale.toString(qulonglong(last)),
                             locale.toString(qulonglong(model_->frameCount())),
                             locale.toString(qulonglong(model_->page() + 1)), locale.toString(qulonglong(pages))));
    previous_->setEnabled(model_->page() > 0);
    next_->setEnabled(model_->page() + 1 < pages);
}

} // namespace ui
