#include "core/jobs/Job.h"

#include "core/util/Error.h"

#include <algorithm>
#include <numeric>

namespace cs {

const char* jobStateName(JobState s)
{
    switch (s) {
    case JobState::Pending: return "pending";
    case JobState::Running: return "running";
    case JobState::Done: return "done";
    case JobState::Failed: return "failed";
    case JobState::Cancelled: return "cancelled";
    }
    return "unknown";
}

Job::Job(std::string name, std::vector<std::string> steps)
{
    status_.name = std::move(name);
    setSteps(std::move(steps));
}

void Job::setSteps(std::vector<std::string> steps, std::vector<double> weights)
{
    std::lock_guard lock(mutex_);
    status_.steps = std::move(steps);
    if (weights.size() != status_.steps.size())
        weights.assign(status_.steps.size(), 1.0);
    weights_ = std::move(weights);
}

void Job::setListener(Listener listener)
{
    std::lock_guard lock(mutex_);
    listener_ = std::move(listener);
}

void Job::start()
{
    {
        std::lock_guard lock(mutex_);
        started_ = std::chrono::steady_clock::now();
        status_.state = JobState::Running;
    }
    notify(true);
}

void Job::beginStep(int index, const std::string& message)
{
    {
        std::lock_guard lock(mutex_);
        status_.step = index;
        status_.stepFraction = 0;
        status_.message = message;
    }
    notify(true);
}

void Job::beginStep(const std::string& stepName, const std::string& message)
{
    int index = -1;
    {
        std::lock_guard lock(mutex_);
        auto it = std::find(status_.steps.begin(), status_.steps.end(), stepName);
        if (it == status_.steps.end()) {
            status_.steps.push_back(stepName);
            weights_.push_back(1.0);
            index = int(status_.steps.size()) - 1;
        } else {
            index = int(it - status_.steps.begin());
        }
    }
    beginStep(index, message);
}

void Job::setStepProgress(double fraction, const std::string& message)
{
    {
        std::lock_guard lock(mutex_);
        status_.stepFraction = std::clamp(fraction, 0.0, 1.0);
        if (!message.empty())
            status_.message = message;
    }
    notify(false);
}

void Job::checkCancel() const
{
    if (isCancelled())
        throw Cancelled();
}

void Job::finish(const std::string& result)
{
    {
        std::lock_guard lock(mutex_);
        status_.state = JobState::Done;
        status_.result = result;
        status_.stepFraction = 1;
    }
    notify(true);
}

void Job::failWith(const std::string& error)
{
    {
        std::lock_guard lock(mutex_);
        status_.state = JobState::Failed;
        status_.message = error;
    }
    notify(true);
}

void Job::markCancelled()
{
    {
        std::lock_guard lock(mutex_);
        status_.state = JobState::Cancelled;
        status_.message = "cancelled";
    }
    notify(true);
}

double Job::overallLocked() const
{
    if (status_.state == JobState::Done)
        return 1.0;
    if (status_.steps.empty() || status_.step < 0)
        return status_.steps.empty() ? status_.stepFraction : 0.0;
    const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
    if (total <= 0)
        return 0;
    double done = 0;
    for (int i = 0; i < status_.step && i < int(weights_.size()); ++i)
        done += weights_[size_t(i)];
    if (status_.step < int(weights_.size()))
        done += weights_[size_t(status_.step)] * status_.stepFraction;
    return std::clamp(done / total, 0.0, 1.0);
}

JobStatus Job::status() const
{
    std::lock_guard lock(mutex_);
    JobStatus s = status_;
    s.fraction = overallLocked();
    if (s.state != JobState::Pending) {
        s.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        if (s.state == JobState::Running && s.fraction > 0.01 && s.elapsedSeconds > 0.2)
            s.secondsLeft = s.elapsedSeconds * (1 - s.fraction) / s.fraction;
        else if (s.state == JobState::Done)
            s.secondsLeft = 0;
    }
    return s;
}

void Job::notify(bool force)
{
    Listener listener;
    JobStatus s;
    {
        std::lock_guard lock(mutex_);
        if (!listener_)
            return;
        const double f = overallLocked();
        if (!force && lastNotified_ >= 0 && f - lastNotified_ < 0.001)
            return;
        lastNotified_ = f;
        listener = listener_;
    }
    s = status();
    listener(s);
}

bool Job::run(const std::function<void(Job&)>& fn)
{
    start();
    try {
        fn(*this);
        if (status().state == JobState::Running)
            finish();
        return true;
    } catch (const Cancelled&) {
        markCancelled();
    } catch (const std::exception& e) {
        failWith(e.what());
    }
    return false;
}

} // namespace cs
