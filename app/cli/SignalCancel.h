// Ctrl-C (SIGINT) and SIGTERM cancel the running job, so that the operation
// removes its temp output like on any cancel; the default action comes back
// when the job's scope ends.
#pragma once
#include "core/jobs/Job.h"

namespace cli {

class SignalCancel {
public:
    explicit SignalCancel(cs::Job& job);
    ~SignalCancel();
    SignalCancel(const SignalCancel&) = delete;
    SignalCancel& operator=(const SignalCancel&) = delete;
};

} // namespace cli
