#include "ui/jobs/DocumentActions.h"

#include <QMessageBox>
#include <QPushButton>
#include <QWidget>

namespace ui {

DocumentActions::DocumentActions(QWidget* owner, QString failureTitle, std::function<void(const JobOutcome&)> afterEach)
    : QObject(owner),
      owner_(owner),
      failureTitle_(std::move(failureTitle)),
      afterEach_(std::move(afterEach)),
      runner_(new JobRunner(this))
{
    connect(runner_, &JobRunner::finished, this, &DocumentActions::onFinished);
}

void DocumentActions::begin()
{
    lastError_.clear();
    pendingResult_ = {};
}

void DocumentActions::run(const QString& name, std::function<void(cs::Job&)> work)
{
    begin();
    runner_->start(name, std::move(work));
}

void DocumentActions::onFinished(const JobOutcome& outcome)
{
    // Taken first: it may start the next action (a plan's confirmation does not, a test may).
    auto result = std::exchange(pendingResult_, {});
    if (!outcome.ok())
        lastError_ = outcome.message;
    if (outcome.failed()) {
        auto* box = new QMessageBox(QMessageBox::Warning, failureTitle_, outcome.message, QMessageBox::Ok, owner_);
        box->setObjectName(QStringLiteral("actionFailed"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    if (afterEach_)
        afterEach_(outcome);
    if (outcome.ok() && result)
        result();
    Q_EMIT finished(outcome);
}

void DocumentActions::confirmThen(const QString& title, const QString& text, const QString& confirmLabel,
                                  std::function<void()> go)
{
    auto* box = new QMessageBox(QMessageBox::Question, title, text, QMessageBox::Cancel, owner_);
    box->setObjectName(QStringLiteral("confirmWrite"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::RichText);
    QPushButton* yes = box->addButton(confirmLabel, QMessageBox::AcceptRole);
    yes->setObjectName(QStringLiteral("confirmButton"));
    box->setDefaultButton(qobject_cast<QPushButton*>(box->button(QMessageBox::Cancel)));
    connect(box, &QMessageBox::buttonClicked, this, [yes, go = std::move(go)](QAbstractButton* clicked) {
        if (clicked == yes)
            go();
    });
    box->open();
}

void DocumentActions::refuse(const QString& title, const QString& message)
{
    lastError_ = message;
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, owner_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace ui
