// Runs a cs::Job's work on a worker thread and reports it as Qt signals on
// the GUI thread. Each start() numbers a new job and cancels the previous one;
// progress and results of a job that is no longer current are dropped, so a
// view only ever sees the outcome of the last thing it asked for.
//
// Work runs through a ui::Background (the WorkerPool, results back through
// the GuiInbox). Progress is coalesced: the worker keeps only the latest
// status and has at most one call at a time on its way to the GUI thread, on
// top of the core's own 0.1 % throttle. The destructor cancels every running
// job and waits for it, so no work outlives the runner.
//
// Results stay typed (as hotspot's JobTracker keeps them): start(name, work,
// onResult) hands work's return value to onResult on the GUI thread, only
// for the current job and only when it succeeded, just before finished().
// The value travels in a slot made for its type (no type erasure, no cast);
// it follows Background's rule (plain C++ values, no QString).
#pragma once
#include "core/jobs/Job.h"
#include "ui/jobs/Background.h"
#include "ui/jobs/JobOutcome.h"

#include <QObject>
#include <QString>

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>

Q_DECLARE_METATYPE(cs::JobStatus)

namespace ui {

class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    // Work runs on a worker thread: it reports through the job, calls
    // job.checkCancel() often and throws cs::Error on failure.
    //
    // Starts work as job number N (returned), cancelling the current job.
    // When it succeeds and is still the current job, onResult(value) runs on
    // the GUI thread with what work returned, then finished() is emitted.
    template <typename Work, typename OnResult>
        requires std::invocable<OnResult&, std::invoke_result_t<Work&, cs::Job&>&&>
    int start(const QString& name, Work work, OnResult onResult, const QStringList& steps = {})
    {
        using Result = std::invoke_result_t<Work&, cs::Job&>;
        auto slot = std::make_shared<std::optional<Result>>();
        return startJob(
            name, steps, [slot, work = std::move(work)](cs::Job& job) mutable { slot->emplace(work(job)); },
            [slot, onResult = std::move(onResult)]() mutable { onResult(std::move(**slot)); });
    }
    // The same for work whose value (if any) nobody needs: only finished().
    int start(const QString& name, std::function<void(cs::Job&)> work, const QStringList& steps = {});

    bool isRunning() const { return running_; }
    int currentJobId() const { return currentId_; }
    const cs::JobStatus& lastStatus() const { return lastStatus_; }
    // Progress text for a status bar: "Scanning: 42 % · about 3 s left".
    static QString describe(const cs::JobStatus& status);

    // Waits (blocking) until every job this runner started has returned; for tests and shutdown.
    void waitForAll();

public Q_SLOTS:
    void cancel();

Q_SIGNALS:
    void started(int jobId);
    void progress(const cs::JobStatus& status);
    // The current job ended: done (onResult already ran), failed or cancelled.
    void finished(const ui::JobOutcome& outcome);

private:
    struct Channel;  // shared between the worker and the GUI thread
    struct Outcome;  // what a worker hands back
    int startJob(const QString& name, const QStringList& steps, std::function<void(cs::Job&)> work,
                 std::function<void()> deliverResult);
    void deliverProgress(int jobId, const std::shared_ptr<Channel>& channel);
    void deliverFinished(int jobId, Outcome outcome);

    int nextId_ = 0;
    int currentId_ = 0;
    bool running_ = false;
    std::shared_ptr<cs::Job> current_;
    cs::JobStatus lastStatus_;
    std::function<void()> deliverResult_;   // the current job's onResult, bound to its slot
    Background background_;
};

} // namespace ui
