#include "ui/jobs/JobProgressWidget.h"

#include "ui/jobs/JobRunner.h"
#include "ui/jobs/StatusText.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QPushButton>

namespace ui {

JobProgressWidget::JobProgressWidget(QWidget* parent)
    : QWidget(parent), label_(new StatusText(this)), bar_(new QProgressBar(this)), cancel_(new QPushButton(tr("Cancel"), this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    bar_->setRange(0, 1000);
    bar_->setTextVisible(false);
    bar_->setMaximumWidth(320);
    layout->addWidget(label_, 1);
    layout->addWidget(bar_, 1);
    layout->addWidget(cancel_);
    hide();
}

void JobProgressWidget::setKeepSpaceWhenHidden(bool keep)
{
    QSizePolicy policy = sizePolicy();
    policy.setRetainSizeWhenHidden(keep);
    setSizePolicy(policy);
}

void JobProgressWidget::attach(JobRunner* runner)
{
    connect(runner, &JobRunner::started, this, [this, runner] {
        cancel_->setEnabled(true);
        bar_->setValue(0);
        showStatus(runner->lastStatus());
        show();
    });
    connect(runner, &JobRunner::progress, this, &JobProgressWidget::showStatus);
    connect(runner, &JobRunner::finished, this, [this] { hide(); });
    connect(cancel_, &QPushButton::clicked, runner, &JobRunner::cancel);
    connect(cancel_, &QPushButton::clicked, this, [this] {
        cancel_->setEnabled(false);
        label_->setText(tr("Cancelling…"));
    });
}

void JobProgressWidget::showStatus(const cs::JobStatus& status)
{
    bar_->setValue(int(status.fraction * 1000));
    if (cancel_->isEnabled()) {
        label_->setText(JobRunner::describe(status));   // its tooltip too
    }
}

} // namespace ui
