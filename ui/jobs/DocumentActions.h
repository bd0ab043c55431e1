// The actions of a document (a store, a cache server), in one place: each
// runs as a job on the document's action runner; a write can first ask
// (confirmThen: a window-modal box whose button alone starts it); a failure
// is shown in a box named "actionFailed" and kept as lastError(); the
// document's own bookkeeping (re-read, refresh) runs when each one ends,
// then the action's onResult, then finished().
#pragma once
#include "ui/jobs/JobOutcome.h"
#include "ui/jobs/JobRunner.h"

#include <QObject>
#include <QString>

#include <functional>
#include <utility>

class QWidget;

namespace ui {

class DocumentActions : public QObject {
    Q_OBJECT
public:
    // owner: the document (parent of the boxes); failureTitle: the failure
    // box's title; afterEach: the document's bookkeeping after every action
    // (a failed or cancelled write may have done part of its work).
    DocumentActions(QWidget* owner, QString failureTitle, std::function<void(const JobOutcome&)> afterEach);

    JobRunner* runner() const { return runner_; }
    bool isRunning() const { return runner_->isRunning(); }
    // The message of the last action that did not succeed ("" when the last one did).
    QString lastError() const { return lastError_; }

    // Runs work (see JobRunner::start); onResult gets its value on the GUI
    // thread when it succeeds, after afterEach.
    template <typename Work, typename OnResult>
    void run(const QString& name, Work work, OnResult onResult)
    {
        begin();
        runner_->start(name, std::move(work), [this, onResult = std::move(onResult)](auto value) {
            pendingResult_ = [onResult, value = std::move(value)] { onResult(value); };
        });
    }
    void run(const QString& name, std::function<void(cs::Job&)> work);

    // Window-modal and non-blocking (open(), not exec()): nothing waits on a
    // nested event loop, and a test can find the box ("confirmWrite") and
    // press its button ("confirmButton"). Cancel is the default.
    void confirmThen(const QString& title, const QString& text, const QString& confirmLabel, std::function<void()> go);
    // An action refused before it started: the sentence becomes lastError()
    // and is shown in a warning box with this title.
    void refuse(const QString& title, const QString& message);

Q_SIGNALS:
    // After each action, done (with its result line), failed or cancelled.
    void finished(const ui::JobOutcome& outcome);

private:
    void begin();
    void onFinished(const JobOutcome& outcome);

    QWidget* owner_;
    QString failureTitle_;
    std::function<void(const JobOutcome&)> afterEach_;
    JobRunner* runner_;
    std::function<void()> pendingResult_;   // the finished action's onResult, bound to its value
    QString lastError_;
};

} // namespace ui
