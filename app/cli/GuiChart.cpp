#include "GuiChart.h"

#include "core/util/Error.h"

#include <climits>
#include <cstdio>
#include <cstdlib>

#include <sys/wait.h>
#include <unistd.h>

namespace cli {

namespace {

std::string ownDirectory()
{
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return ".";
    std::string self(buf, size_t(n));
    return self.substr(0, self.rfind('/'));
}

} // namespace

TempFolder::TempFolder()
{
    char tmpl[] = "/tmp/cachescope-plot-XXXXXX";
    if (!::mkdtemp(tmpl))
        throw cs::Error("cannot create a temporary folder for the chart data");
    dir_ = tmpl;
}

TempFolder::~TempFolder()
{
    size_t start = 0;
    while (start < files_.size()) {
        const size_t end = files_.find('\n', start);
        ::unlink((dir_ + "/" + files_.substr(start, end - start)).c_str());
        start = end + 1;
    }
    ::rmdir(dir_.c_str());
}

std::string TempFolder::file(const std::string& name)
{
    files_ += name + "\n";
    return dir_ + "/" + name;
}

void drawWithGui(const std::string& renderOption, const std::string& dataFile, const std::string& plotPath)
{
    std::string output = plotPath;
    if (output.empty() || output[0] != '/') {
        char cwd[PATH_MAX];
        if (::getcwd(cwd, sizeof cwd))
            output = std::string(cwd) + "/" + output;
    }
    const std::string gui = ownDirectory() + "/cachescope";
    int errPipe[2];
    if (::pipe(errPipe) != 0)
        throw cs::Error("cannot create a pipe to draw the chart");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(errPipe[1], STDERR_FILENO);
        ::close(errPipe[0]);
        ::close(errPipe[1]);
        ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
        const char* argv[] = {gui.c_str(), renderOption.c_str(), dataFile.c_str(), "--output", output.c_str(), nullptr};
        ::execv(gui.c_str(), const_cast<char* const*>(argv));
        std::fprintf(stderr, "%s: cannot start it to draw the chart\n", gui.c_str());
        ::_exit(127);
    }
    ::close(errPipe[1]);
    if (pid < 0) {
        ::close(errPipe[0]);
        throw cs::Error("cannot start " + gui + " to draw the chart");
    }
    std::string err;
    char buf[4096];
    for (ssize_t n; (n = ::read(errPipe[0], buf, sizeof buf)) != 0;) {
        if (n < 0)
            break;
        err.append(buf, size_t(n));
    }
    ::close(errPipe[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
            err.pop_back();
        throw cs::Error(err.empty() ? plotPath + ": drawing the chart failed" : err);
    }
}

} // namespace cli
