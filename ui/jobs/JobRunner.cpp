#include "ui/jobs/JobRunner.h"

#include "core/util/Units.h"

#include <mutex>

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
    std::any value;
};

JobRunner::JobRunner(QObject* parent) : QObject(parent)
{
    static const int registered = qRegisterMetaType<cs::JobStatus>();
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

int JobRunner::start(const QString& name, Work work, const QStringList& steps)
{
    cancel();

    const int id = ++nextId_;
    currentId_ = id;
    running_ = true;
    result_.reset();
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
            outcome.ok = job->run([&](cs::Job& j) { outcome.value = work(j); });
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
    const bool ok = outcome.ok;
    const cs::JobStatus& status = outcome.status;
    running_ = false;
    current_.reset();
    lastStatus_ = status;
    result_ = ok ? std::move(outcome.value) : std::any();
    QString text;
    if (ok)
        text = QString::fromStdString(status.result);
    else if (status.state == cs::JobState::Cancelled)
        text = QStringLiteral("cancelled");
    else
        text = QString::fromStdString(status.message);
    Q_EMIT finished(ok, text);
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
