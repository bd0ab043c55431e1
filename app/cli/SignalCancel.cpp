#include "SignalCancel.h"

#include <atomic>
#include <csignal>

namespace cli {

namespace {

std::atomic<cs::Job*> g_runningJob{nullptr};

extern "C" void cancelOnSignal(int)
{
    // Job::cancel only stores an atomic flag: safe in a signal handler.
    if (cs::Job* job = g_runningJob.load())
        job->cancel();
}

} // namespace

SignalCancel::SignalCancel(cs::Job& job)
{
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

} // namespace cli
