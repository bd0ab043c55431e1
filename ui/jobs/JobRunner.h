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
#pragma once
#include "core/jobs/Job.h"
#include "ui/jobs/Background.h"

#include <QObject>
#include <QString>

#include <any>
#include <functional>
#include <memory>

Q_DECLARE_METATYPE(cs::JobStatus)

namespace ui {

class JobRunner : public QObject {
    Q_OBJECT
public:
    // Runs on a worker thread; report through the job, call job.checkCancel()
    // often, throw cs::Error on failure. The returned value is the result.
    using Work = std::function<std::any(cs::Job&)>;

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    // Starts work as job number N (returned), cancelling the current job.
    int start(const QString& name, Work work, const QStringList& steps = {});

    bool isRunning() const { return running_; }
    int currentJobId() const { return currentId_; }
    const cs::JobStatus& lastStatus() const { return lastStatus_; }
    // The value returned by the last finished job's work (empty on failure).
    const std::any& result() const { return result_; }
    // Progress text for a status bar: "Scanning: 42 % · about 3 s left".
    static QString describe(const cs::JobStatus& status);

    // Waits (blocking) until every job this runner started has returned; for tests and shutdown.
    void waitForAll();

public Q_SLOTS:
    void cancel();

Q_SIGNALS:
    void started(int jobId);
    void progress(const cs::JobStatus& status);
    // ok == false with the error sentence, or "cancelled" when cancelled.
    void finished(bool ok, const QString& resultOrError);

private:
    struct Channel;  // shared between the worker and the GUI thread
    struct Outcome;  // what a worker hands back
    void deliverProgress(int jobId, const std::shared_ptr<Channel>& channel);
    void deliverFinished(int jobId, Outcome outcome);

    int nextId_ = 0;
    int currentId_ = 0;
    bool running_ = false;
    std::shared_ptr<cs::Job> current_;
    cs::JobStatus lastStatus_;
    std::any result_;
    Background background_;
};

} // namespace ui
