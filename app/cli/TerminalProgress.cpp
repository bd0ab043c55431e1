#include "TerminalProgress.h"

#include "CommandTree.h"
#include "core/util/Units.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/ioctl.h>
#include <unistd.h>

namespace cli {

namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100); // at most 10 Hz

int terminalColumns()
{
    winsize ws{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

bool terminalState(cs::JobState s)
{
    return s == cs::JobState::Done || s == cs::JobState::Failed || s == cs::JobState::Cancelled;
}

} // namespace

bool stderrIsTerminal()
{
    if (!::isatty(STDERR_FILENO))
        return false;
    const char* term = std::getenv("TERM");
    return !(term && std::strcmp(term, "dumb") == 0);
}

TerminalProgress::TerminalProgress(cs::Job& job, uint64_t total, bool quiet)
    : job_(job), active_(!quiet && stderrIsTerminal()), total_(total)
{
    if (active_)
        job_.setListener([this](const cs::JobStatus& s) { onStatus(s); });
}

TerminalProgress::~TerminalProgress()
{
    if (active_)
        job_.setListener({});
    clear();
}

void TerminalProgress::setTotal(uint64_t total)
{
    std::lock_guard lock(mutex_);
    total_ = total;
}

void TerminalProgress::clear()
{
    std::lock_guard lock(mutex_);
    if (drawn_) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        drawn_ = false;
    }
}

std::string TerminalProgress::line(const cs::JobStatus& s, uint64_t total, int columns)
{
    std::string label = s.name;
    if (s.step >= 0 && size_t(s.step) < s.steps.size() && s.steps.size() > 1)
        label += ": " + s.steps[size_t(s.step)];
    // Most useful first: a line cut at the terminal's edge loses the rate.
    std::string tail = " " + fixed(s.fraction * 100, 1) + " %";
    std::string rate;
    if (total) {
        const auto done = uint64_t(s.fraction * double(total));
        tail += "  " + cs::formatSize(done) + " / " + cs::formatSize(total);
        if (s.elapsedSeconds > 0.05)
            rate = "  " + cs::formatSize(uint64_t(double(done) / s.elapsedSeconds)) + "/s";
    }
    if (s.secondsLeft >= 0)
        tail += "  " + cs::formatDuration(s.secondsLeft) + " left";
    tail += rate;
    // label [####----] tail: the bar's width depends only on the label and
    // the terminal, so it does not jump while the numbers change; the line is
    // cut at the terminal's width.
    constexpr int kTailRoom = 48;
    const int barWidth = std::clamp(columns - 1 - int(label.size()) - 3 - kTailRoom, 10, 40);
    const int filled = int(s.fraction * barWidth + 0.5);
    std::string out = label + (label.empty() ? "[" : " [");
    out.append(size_t(std::clamp(filled, 0, barWidth)), '#');
    out.append(size_t(barWidth - std::clamp(filled, 0, barWidth)), '-');
    out += "]" + tail;
    if (int(out.size()) > columns - 1)
        out.resize(size_t(columns - 1));
    return out;
}

void TerminalProgress::onStatus(const cs::JobStatus& s)
{
    // Workers may report concurrently: one draws, the others skip.
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock())
        return;
    if (terminalState(s.state)) {
        if (drawn_) {
            std::fputs("\r\033[K", stderr);
            std::fflush(stderr);
            drawn_ = false;
        }
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - lastDraw_ < kRedrawInterval)
        return;
    lastDraw_ = now;
    const std::string text = line(s, total_, terminalColumns());
    std::fprintf(stderr, "\r%s\033[K", text.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

} // namespace cli
