// The main window's status bar: the current tab's job (text and progress)
// and the GUI thread's stall monitor.
#include "ui/jobs/JobRunner.h"
#include "ui/shell/Document.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/StallMonitor.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

namespace ui {

void MainWindow::createStatusBar()
{
    jobLabel_ = new QLabel(this);
    // A long job text is clipped, never a reason for the window to grow or
    // the sidebar to be squeezed.
    jobLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    jobBar_ = new QProgressBar(this);
    jobBar_->setRange(0, 1000);
    jobBar_->setTextVisible(false);
    jobBar_->setMaximumWidth(200);
    jobBar_->hide();
    stallLabel_ = new QLabel(stallMonitor_->text(), this);
    stallLabel_->setToolTip(tr("Longest time the window did not respond, since start and in the last minute"));
    statusBar()->addWidget(jobLabel_, 1);
    statusBar()->addWidget(jobBar_);
    statusBar()->addPermanentWidget(stallLabel_);
    connect(stallMonitor_, &StallMonitor::stallsChanged, this, [this] { stallLabel_->setText(stallMonitor_->text()); });
}

void MainWindow::followJobOf(QWidget* doc)
{
    const auto* document = dynamic_cast<const Document*>(doc);
    JobRunner* runner = document ? document->jobRunner() : nullptr;
    if (runner == followedRunner_)
        return;
    if (followedRunner_)
        disconnect(followedRunner_, nullptr, this, nullptr);
    followedRunner_ = runner;
    jobBar_->hide();
    jobLabel_->clear();
    if (!runner)
        return;
    auto show = [this](const cs::JobStatus& s) {
        jobLabel_->setText(JobRunner::describe(s));
        jobBar_->setValue(int(s.fraction * 1000));
        jobBar_->show();
    };
    connect(runner, &JobRunner::started, this, [this, runner] {
        jobBar_->setValue(0);
        jobBar_->show();
        jobLabel_->setText(JobRunner::describe(runner->lastStatus()));
    });
    connect(runner, &JobRunner::progress, this, show);
    connect(runner, &JobRunner::finished, this, [this, runner](const JobOutcome& outcome) {
        jobBar_->hide();
        const QString name = QString::fromStdString(runner->lastStatus().name);
        const double seconds = runner->lastStatus().elapsedSeconds;
        const QString took = seconds < 1 ? tr("%1 ms").arg(qRound(seconds * 1000)) : tr("%1 s").arg(seconds, 0, 'f', 1);
        jobLabel_->setText(outcome.ok() ? tr("%1: done in %2").arg(name, took) : tr("%1: %2").arg(name, outcome.message));
    });
    connect(runner, &QObject::destroyed, this, [this, runner] {
        if (followedRunner_ == runner)
            followedRunner_ = nullptr;
    });
    if (runner->isRunning())
        show(runner->lastStatus());
}

} // namespace ui
