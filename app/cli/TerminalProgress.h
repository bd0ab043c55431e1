// Progress of a core job on the terminal: one line on stderr, redrawn in
// place at most 10 times a second, with the step, a bar, the percentage,
// bytes done of the total (when the command knows it), the rate and the time
// left; cleared when the job ends so that what follows starts on a clean line.
// Quiet when stderr is not a terminal (pipes and files get no control
// characters), when TERM is "dumb", or with --quiet.
#pragma once
#include "core/jobs/Job.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace cli {

class TerminalProgress {
public:
    // total: bytes the whole job processes, 0 when unknown.
    TerminalProgress(cs::Job& job, uint64_t total, bool quiet);
    ~TerminalProgress();
    TerminalProgress(const TerminalProgress&) = delete;
    TerminalProgress& operator=(const TerminalProgress&) = delete;

    bool active() const { return active_; }
    void setTotal(uint64_t total);
    // Erases the line (also done by the destructor and when the job ends).
    void clear();

    // The line for a status, fitted to `columns` (no control characters).
    static std::string line(const cs::JobStatus& s, uint64_t total, int columns);

private:
    void onStatus(const cs::JobStatus& s);

    cs::Job& job_;
    bool active_ = false;
    uint64_t total_ = 0;
    std::mutex mutex_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point lastDraw_{};
};

// Whether progress would be drawn: stderr is a terminal that is not "dumb".
bool stderrIsTerminal();

} // namespace cli
