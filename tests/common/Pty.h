// Runs cachescope-cli on a pseudo-terminal (TERM=xterm), so that the tests
// see what a user's terminal gets: progress lines redrawn with \r and \033[K.
#pragma once
#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace testsupport {

// Whether process pid has a handler for sig (SigCgt in /proc/PID/status).
inline bool catchesSignal(pid_t pid, int sig)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("SigCgt:"))
            return (line.mid(7).trimmed().toULongLong(nullptr, 16) >> (sig - 1)) & 1;
    return false;
}

// cachescope-cli on a pseudo-terminal while the test types at it:
// send("\x03") is Ctrl-C, which the terminal's line discipline turns into
// SIGINT for its foreground process group (the CLI), as for a user.
class PtyProcess {
public:
    explicit PtyProcess(const QStringList& args)
    {
        std::vector<std::string> storage{CACHESCOPE_CLI};
        for (const auto& a : args)
            storage.push_back(a.toStdString());
        std::vector<char*> argv;
        for (auto& s : storage)
            argv.push_back(s.data());
        argv.push_back(nullptr);
        // The environment with TERM=xterm, made before the fork: between
        // fork and exec the child of a threaded test may only make
        // async-signal-safe calls (setenv can deadlock on malloc's lock).
        std::vector<std::string> envStorage{"TERM=xterm"};
        for (char** e = environ; *e; ++e)
            if (std::strncmp(*e, "TERM=", 5) != 0)
                envStorage.emplace_back(*e);
        std::vector<char*> envp;
        for (auto& s : envStorage)
            envp.push_back(s.data());
        envp.push_back(nullptr);
        // A close-on-exec pipe tells when the exec has happened: until then
        // the child is a copy of the test and has its signal handlers (QtTest
        // catches SIGINT and SIGTERM), which waitForHandler would take for
        // the CLI's.
        int execed[2];
        if (::pipe2(execed, O_CLOEXEC) != 0)
            return;
        pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
        if (pid_ == 0) {
            ::execve(argv[0], argv.data(), envp.data());
            ::_exit(127);
        }
        ::close(execed[1]);
        char byte;
        while (pid_ > 0 && ::read(execed[0], &byte, 1) < 0 && errno == EINTR) {
        }
        ::close(execed[0]);
    }
    ~PtyProcess()
    {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        if (master_ >= 0)
            ::close(master_);
    }
    PtyProcess(const PtyProcess&) = delete;
    PtyProcess& operator=(const PtyProcess&) = delete;

    pid_t pid() const { return pid_; }
    // Waits up to ms for the CLI to install its handler for sig (a command
    // installs it when its cancellable work begins, SignalCancel.h).
    bool waitForHandler(int sig, int ms)
    {
        for (int waited = 0; waited < ms && !catchesSignal(pid_, sig); waited += 10)
            ::usleep(10000);
        return catchesSignal(pid_, sig);
    }
    // As a user would stop it: Ctrl-C typed on its terminal (SIGINT from the
    // line discipline), or SIGTERM sent to it.
    bool interrupt(bool ctrlC) { return ctrlC ? send("\x03") : ::kill(pid_, SIGTERM) == 0; }
    // Interrupts it while it waits: once its SIGINT handler is installed and
    // it is still running runningMs later, then up to 10 s for it to exit.
    // Empty when it exited; else what went wrong (and what it printed).
    QString interruptWhileRunning(bool ctrlC, int runningMs)
    {
        if (!waitForHandler(SIGINT, 30000))
            return "the CLI never installed its SIGINT handler";
        if (waitForExit(runningMs))
            return "the CLI ended before it was interrupted: " + QString::fromLocal8Bit(out_);
        if (!interrupt(ctrlC))
            return "could not interrupt the CLI";
        if (!waitForExit(10000))
            return QString("the CLI did not stop within 10 s of ") + (ctrlC ? "Ctrl-C" : "SIGTERM");
        return {};
    }
    bool send(const QByteArray& bytes) { return ::write(master_, bytes.constData(), size_t(bytes.size())) == bytes.size(); }

    // Reads the terminal until the CLI exits or ms pass; false on timeout
    // (the destructor then kills it).
    bool waitForExit(int ms)
    {
        for (int waited = 0; !exited_; waited += 50) {
            drain(50);
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                drain(0);
            } else if (waited >= ms) {
                return false;
            }
        }
        return true;
    }
    int exitCode() const { return exitCode_; }   // -1 when a signal ended it
    const QByteArray& output() const { return out_; }   // stdout and stderr together

private:
    void drain(int timeoutMs)
    {
        char buf[4096];
        pollfd pfd{master_, POLLIN, 0};
        while (::poll(&pfd, 1, timeoutMs) > 0) {
            const ssize_t n = ::read(master_, buf, sizeof buf);
            if (n <= 0) {
                // EIO once the child closed the terminal: wait out the poll time.
                if (timeoutMs > 0)
                    ::usleep(useconds_t(timeoutMs) * 1000);
                return;
            }
            out_.append(buf, n);
            timeoutMs = 0;
        }
    }

    int master_ = -1;
    pid_t pid_ = -1;
    bool exited_ = false;
    int exitCode_ = -1;
    QByteArray out_;
};

// Exit code (-1 when killed, or not done within two minutes) and everything
// written to the terminal (stdout and stderr together).
inline std::pair<int, QByteArray> cliOnPty(const QStringList& args)
{
    PtyProcess p(args);
    if (!p.waitForExit(120000))
        return {-1, p.output()};
    return {p.exitCode(), p.output()};
}

} // namespace testsupport
