// Measures one GC step: wall time and getrusage deltas of the calling thread
// (RUSAGE_THREAD: the GC may run on a worker thread of a busy GUI process),
// plus the process's maxrss high-water mark at the end of the step.
#pragma once
#include "core/gc/Gc.h"

#include <sys/resource.h>

#include <chrono>

namespace cs::gc {

class StepMeter {
public:
    explicit StepMeter(std::string name);
    StepStats finish() const;

private:
    std::string name_;
    std::chrono::steady_clock::time_point start_;
    rusage usage_{};
};

} // namespace cs::gc
