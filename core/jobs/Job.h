// Long work (scan, merge, restore, GC, benchmark) runs under a Job: a name,
// named steps, a progress fraction 0..1 over all steps, a time-left estimate,
// a cancel flag checked often, and a result text or an error.
//
// The core knows nothing of Qt. A worker calls beginStep()/setStepProgress()
// and checkCancel(); observers register a listener that is called on the
// worker's thread (the UI adapter re-queues it to the GUI thread). Listener
// calls are throttled: at most when progress moved by 0.1 % or the step or
// state changed.
//
// A cancelled operation throws cs::Cancelled from checkCancel() and must
// leave no partial state behind (temp files removed, transactions rolled back).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace cs {

enum class JobState { Pending, Running, Done, Failed, Cancelled };
const char* jobStateName(JobState s);

struct JobStatus {
    std::string name;
    JobState state = JobState::Pending;
    int step = -1;                 // index into steps, -1 before the first
    std::vector<std::string> steps;
    double stepFraction = 0;       // 0..1 within the current step
    double fraction = 0;           // 0..1 over the whole job
    double elapsedSeconds = 0;
    double secondsLeft = -1;       // -1 while unknown
    std::string message;           // detail of the current step, or the error
    std::string result;            // short human summary once Done
};

class Job {
public:
    using Listener = std::function<void(const JobStatus&)>;

    explicit Job(std::string name = {}, std::vector<std::string> steps = {});
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;

    // Optional relative weights of the steps (same length as steps); the
    // overall fraction weighs each step by them. Default: equal.
    void setSteps(std::vector<std::string> steps, std::vector<double> weights = {});
    void setListener(Listener listener);

    // Worker side.
    void start();
    void beginStep(int index, const std::string& message = {});
    void beginStep(const std::string& stepName, const std::string& message = {});
    void setStepProgress(double fraction, const std::string& message = {});
    void setStepProgress(uint64_t done, uint64_t total) { setStepProgress(total ? double(done) / double(total) : 1.0); }
    void checkCancel() const;      // throws cs::Cancelled once cancel() was called
    void finish(const std::string& result = {});
    void failWith(const std::string& error);
    void markCancelled();

    // Any thread.
    void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return cancelled_.load(std::memory_order_relaxed); }
    JobStatus status() const;

    // Runs fn(job) with start()/finish() and turns exceptions into
    // failWith()/markCancelled(). Returns true when fn completed.
    bool run(const std::function<void(Job&)>& fn);

private:
    void notify(bool force);
    double overallLocked() const;

    mutable std::mutex mutex_;
    JobStatus status_;
    std::vector<double> weights_;
    std::chrono::steady_clock::time_point started_;
    double lastNotified_ = -1;
    Listener listener_;
    std::atomic<bool> cancelled_{false};
};

} // namespace cs
