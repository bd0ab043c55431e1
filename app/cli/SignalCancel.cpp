#include "SignalCancel.h"

#include <atomic>
#include <csignal>

namespace cli {

namespace {

std::atomic<cs::Job*> g_runningJob{nullptr};
std::atomic<int> g_signal{0};
std::string g_jobName;   // set and read outside the handler only
std::string g_outcome;

extern "C" void cancelOnSignal(int sig)
{
    // Job::cancel only stores an atomic flag: safe in a signal handler.
    if (cs::Job* job = g_runningJob.load()) {
        int none = 0;
        g_signal.compare_exchange_strong(none, sig);
        job->cancel();
    }
}

} // namespace

SignalCancel::SignalCancel(cs::Job& job, std::string outcome)
{
    g_jobName = job.status().name;
    g_outcome = std::move(outcome);
    g_signal = 0;
    g_runningJob = &job;
    std::signal(SIGINT, cancelOnSignal);
    std::signal(SIGTERM, cancelOnSignal);
}

SignalCancel::~SignalCancel()
{
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_runningJob = nullptr;
}

void SignalCancel::setOutcome(std::string outcome) { g_outcome = std::move(outcome); }

int cancellingSignal() { return g_signal.load(); }

std::string interruptionSentence()
{
    const int sig = g_signal.load();
    const std::string name = sig == SIGINT ? "SIGINT (Ctrl-C)" : sig == SIGTERM ? "SIGTERM" : "signal " + std::to_string(sig);
    return g_jobName + ": interrupted by " + name + " and cancelled" + (g_outcome.empty() ? "" : "; " + g_outcome);
}

} // namespace cli
