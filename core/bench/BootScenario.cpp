// The `boot` scenario: starts the GUI (`cachescope --profile-boot FILE`) as a
// child process, optionally with a store or file to open, under the offscreen
// platform, an existing display, or an Xvfb server started here. The GUI
// writes a JSON profile (first painted window in ms since process start, RSS
// after being idle, longest main-thread stall) and quits; this scenario
// samples the child's RSS while it runs and reads the profile back.
//
// The GUI measures from CACHESCOPE_BOOT_T0 (CLOCK_MONOTONIC nanoseconds taken
// here just before the spawn), so the figure includes exec and dynamic linking.
#include "core/bench/Scenarios.h"

#include "core/util/Error.h"
#include "core/util/File.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

extern char** environ;

namespace cs {

namespace {

int64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// An Xvfb server for the duration of the scenario.
class XvfbServer {
public:
    XvfbServer(int display, Job& job)
    {
        const std::string xvfb = findProgram("Xvfb");
        if (xvfb.empty())
            throw Error("Xvfb not found: install xvfb or use platform=offscreen");
        const std::string name = ":" + std::to_string(display);
        const std::string socket = "/tmp/.X11-unix/X" + std::to_string(display);
        if (access(socket.c_str(), F_OK) == 0)
            throw Error(socket + ": display " + name + " is already in use (choose another with display=N)");
        std::vector<std::string> argv = {xvfb, name, "-screen", "0", "1400x900x24", "-nolisten", "tcp"};
        std::vector<char*> args;
        for (auto& a : argv)
            args.push_back(a.data());
        args.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        const int rc = posix_spawn(&pid_, xvfb.c_str(), &actions, nullptr, args.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) {
            errno = rc;
            failErrno(xvfb, "cannot start");
        }
        for (int i = 0; i < 500 && access(socket.c_str(), F_OK) != 0; ++i) {
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = 0;
                throw Error(xvfb + " " + name + " exited at start");
            }
            job.checkCancel();
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (access(socket.c_str(), F_OK) != 0)
            throw Error(xvfb + " " + name + " did not open its socket within 5 s");
        display_ = name;
    }
    ~XvfbServer()
    {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            int status = 0;
            waitpid(pid_, &status, 0);
        }
    }
    const std::string& display() const { return display_; }

private:
    pid_t pid_ = 0;
    std::string display_;
};

class BootScenario : public Scenario {
public:
    std::string name() const override { return "boot"; }
    std::string description() const override
    {
        return "Start the GUI, measure the first painted window, the RSS after idling and the longest stall.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"gui", ParamKind::Path, "", "the cachescope GUI program (default: next to this program)"},
            {"open", ParamKind::Path, "", "a store or file for the GUI to open (e.g. the demo store)"},
            {"idle", ParamKind::Double, "10", "seconds the GUI idles before its RSS is read"},
            {"platform", ParamKind::String, "auto",
             "offscreen, xvfb, inherit ($DISPLAY), or auto (inherit when $DISPLAY is set, else offscreen)"},
            {"display", ParamKind::Int, "97", "X display number for platform=xvfb"},
            {"timeout", ParamKind::Double, "120", "seconds before the GUI is stopped"},
        };
    }

    ResultTable run(const Params& p, SampleSink& sink, Job& job) override
    {
        std::string gui = p.text("gui");
        if (gui.empty())
            gui = selfDirectory() + "/cachescope";
        if (access(gui.c_str(), X_OK) != 0)
            throw Error(gui + ": the GUI program is not there or not executable (set gui=PATH)");
        const double idle = p.number("idle");
        if (idle < 0 || idle > 3600)
            throw Error("parameter idle=" + p.raw("idle") + " must be between 0 and 3600 seconds");
        std::string platform = p.text("platform");
        const char* display = std::getenv("DISPLAY");
        if (platform == "auto")
            platform = display && *display ? "inherit" : "offscreen";
        if (platform != "offscreen" && platform != "xvfb" && platform != "inherit")
            throw Error("parameter platform=" + platform + " is not one of auto, offscreen, xvfb, inherit");
        if (platform == "inherit" && !(display && *display))
            throw Error("platform=inherit needs $DISPLAY");

        job.setSteps({"start display", "boot and idle", "read profile"}, {0.1, 1, 0.01});
        job.beginStep(0);
        sink.beginPhase("start display", PhaseRole::Setup);
        std::unique_ptr<XvfbServer> xvfb;
        std::vector<std::string> env;
        if (platform == "xvfb") {
            xvfb = std::make_unique<XvfbServer>(int(p.integer("display")), job);
            env = {"DISPLAY=" + xvfb->display(), "QT_QPA_PLATFORM=xcb"};
        } else if (platform == "offscreen") {
            env = {"QT_QPA_PLATFORM=offscreen"};
        } else {
            env = {"QT_QPA_PLATFORM=xcb"};
        }
        ScratchDir dir(tempRoot(), "cachescope-bench-boot");
        const std::string profile = dir.file("profile.json");
        std::vector<std::string> argv = {gui, "--profile-boot", profile, "--profile-idle", p.raw("idle")};
        if (!p.text("open").empty())
            argv.push_back(p.text("open"));

        job.beginStep(1, "waiting for the first paint and " + p.raw("idle") + " s idle");
        sink.beginPhase("boot and idle", PhaseRole::Ours);
        env.push_back("CACHESCOPE_BOOT_T0=" + std::to_string(monotonicNs()));
        double lastT = -1;
        uint64_t peakChildRss = 0;
        const double t0 = sink.now();
        const ChildResult r = runChild(argv, "", "", job, env, p.number("timeout"), [&](int pid) {
            const double t = sink.now();
            if (t - lastT < 0.1)
                return;
            lastT = t;
            const uint64_t rss = rssBytesOf(pid);
            if (rss) {
                peakChildRss = std::max(peakChildRss, rss);
                sink.add("GUI RSS MB", double(rss) / 1e6);
            }
            job.setStepProgress(std::min(1.0, (t - t0) / (idle + 1.0)));
        });
        sink.setPhaseCpu(r.userSeconds, r.sysSeconds);
        if (r.exitCode != 0)
            throw Error(gui + " exited with code " + std::to_string(r.exitCode) + " during the boot profile");

        job.beginStep(2);
        sink.beginPhase("read profile", PhaseRole::Setup);
        const Json prof = parseJson(readWholeFile(profile, 1 << 20), profile);
        ResultTable table;
        table.add("first painted window", number(field(prof, "first_paint_ms")), "ms");
        table.add("CPU until first paint", number(field(prof, "first_paint_cpu_ms")), "ms");
        table.add("idle RSS", number(field(prof, "idle_rss_bytes")) / 1e6, "MB");
        table.add("longest stall", number(field(prof, "longest_stall_ms")), "ms");
        table.add("longest stall after first paint", number(field(prof, "longest_stall_after_paint_ms")), "ms");
        table.add("peak RSS", double(std::max(peakChildRss, r.maxRssBytes)) / 1e6, "MB");
        table.add("idle", number(field(prof, "idle_seconds")), "s");
        table.add("process wall", r.wallSeconds, "s");
        table.add("process CPU", r.cpuSeconds, "s");
        table.addText("platform", text(field(prof, "platform")));
        table.addText("start measured from", text(field(prof, "t0_source")));
        table.addText("opened", p.text("open").empty() ? "(nothing)" : p.text("open"));
        table.addText("comparisons", "none: no reference tool starts this GUI");
        return table;
    }
};

} // namespace

std::unique_ptr<Scenario> makeBootScenario() { return std::make_unique<BootScenario>(); }

} // namespace cs
