// Ctrl-C (SIGINT) and SIGTERM cancel the running job, so that the operation
// removes its temp output like on any cancel; the default action comes back
// when the job's scope ends. A command cancelled by a signal exits with
// 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM), as a shell
// reports a command a signal ended, with one sentence saying so (main.cpp).
#pragma once
#include "core/jobs/Job.h"

#include <string>

namespace cli {

class SignalCancel {
public:
    // outcome: what a cancel leaves, said after "interrupted by SIGINT"
    // ("nothing was stored"); empty: only that it was cancelled.
    explicit SignalCancel(cs::Job& job, std::string outcome = {});
    ~SignalCancel();
    // What a cancel leaves from now on (the job moved to a later stage).
    void setOutcome(std::string outcome);
    SignalCancel(const SignalCancel&) = delete;
    SignalCancel& operator=(const SignalCancel&) = delete;
};

// The signal that cancelled the last job run under a SignalCancel (0: none),
// and the sentence to report it with.
int cancellingSignal();
std::string interruptionSentence();

} // namespace cli
