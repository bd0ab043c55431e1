#include "ui/jobs/JobRunner.h"

#include "core/util/Units.h"

#include <mutex>
#include <utility>

namespace ui {

// The latest status a worker produced and whether an event to deliver it is
// already queued; a worker never queues a second one before the first ran.
struct JobRunner::Channel {
    std::mutex mutex;
    cs::JobStatus latest;
    bool posted = false;
};

struct JobRunner::Outcome {
    bool ok = false;
    cs::JobStatus status;
};

JobRunner::JobRunner(QObject* parent) : QObject(parent)
{
    static const int registered = qRegisterMetaType<cs::JobStatus>() + qRegisterMetaType<ui::JobOutcome>();
    Q_UNUSED(registered);
}

JobRunner::~JobRunner()
{
    if (current_)
        current_->cancel();
    waitForAll();
}

void JobRunner::waitForAll()
{
    background_.waitForAll();
}

void JobRunner::cancel()
{
    if (current_)
        current_->cancel();
}

int JobRunner::start(const QString& name, std::function<void(cs::Job&)> work, const QStringList& steps)
{
    return startJob(name, steps, std::move(work), {});
}

int JobRunner::startJob(const QString& name, const QStringList& steps, std::function<void(cs::Job&)> work,
                        std::function<void()> deliverResult)
{
    cancel();

    const int id = ++nextId_;
    currentId_ = id;
    running_ = true;
    deliverResult_ = std::move(deliverResult);
    std::vector<std::string> stepNames;
    for (const QString& s : steps)
        stepNames.push_back(s.toStdString());
    auto job = std::make_shared<cs::Job>(name.toStdString(), std::move(stepNames));
    current_ = job;
    lastStatus_ = job->status();

    auto channel = std::make_shared<Channel>();
    job->setListener([this, id, channel, link = background_.link()](const cs::JobStatus& s) {
        std::lock_guard lock(channel->mutex);
        channel->latest = s;
        if (channel->posted)
            return;
        channel->posted = true;
        link.toGui([this, id, channel] { deliverProgress(id, channel); });
    });

    background_.run(
        [job, work = std::move(work)] {
            Outcome outcome;
            outcome.ok = job->run(work);
            job->setListener({});
            outcome.status = job->status();
            return outcome;
        },
        [this, id](Outcome outcome) { deliverFinished(id, std::move(outcome)); });
    Q_EMIT started(id);
    return id;
}

void JobRunner::deliverProgress(int jobId, const std::shared_ptr<Channel>& channel)
{
    cs::JobStatus s;
    {
        std::lock_guard lock(channel->mutex);
        s = channel->latest;
        channel->posted = false;
    }
    if (jobId != currentId_ || !running_)
        return;  // stale: a newer job replaced it, or it already finished
    lastStatus_ = s;
    Q_EMIT progress(s);
}

void JobRunner::deliverFinished(int jobId, Outcome outcome)
{
    if (jobId != currentId_)
        return;  // stale result of a replaced job
    running_ = false;
    current_.reset();
    lastStatus_ = outcome.status;
    const JobOutcome end = JobOutcome::of(outcome.ok, outcome.status);
    // Taken first: onResult may start the next job on this runner.
    auto deliver = std::exchange(deliverResult_, {});
    if (end.ok() && deliver)
        deliver();
    Q_EMIT finished(end);
}

QString JobRunner::describe(const cs::JobStatus& s)
{
    QString text = QString::fromStdString(s.name);
    if (s.step >= 0 && s.step < int(s.steps.size()))
        text += QStringLiteral(" · ") + QString::fromStdString(s.steps[size_t(s.step)]);
    text += QStringLiteral(": %1 %").arg(int(s.fraction * 100));
    if (s.secondsLeft >= 0 && s.state == cs::JobState::Running)
        text += QStringLiteral(" · about %1 left").arg(QString::fromStdString(cs::formatDuration(s.secondsLeft)));
    return text;
}

} // namespace ui
