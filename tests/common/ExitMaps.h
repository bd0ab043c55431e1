// Runs a program to its end and reads /proc/PID/maps as it exits: the child
// is traced (PTRACE_O_TRACEEXIT) and held at its exit event, when its memory
// is still there, so the maps name every library it loaded and kept,
// whether linked or dlopen'd, after all of its work. Also ldd of a program.
#pragma once
#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace testsupport {

struct ExitMapsRun {
    int exitCode = -1;      // -1: did not exit normally (or could not start)
    std::string maps;       // /proc/PID/maps at the exit event
    QByteArray out, err;
    std::string why;        // set when tracing failed
};

// env: extra NAME=VALUE entries over this process's environment.
inline ExitMapsRun runToExitMaps(const QStringList& args, const QStringList& env = {})
{
    ExitMapsRun r;
    QTemporaryDir dir;
    const std::string outPath = (dir.path() + "/out").toStdString(), errPath = (dir.path() + "/err").toStdString();
    std::vector<std::string> argStore, envStore;
    for (const QString& a : args)
        argStore.push_back(a.toStdString());
    for (char** e = environ; *e; ++e)
        envStore.emplace_back(*e);
    for (const QString& e : env)
        envStore.push_back(e.toStdString());
    std::vector<char*> argv, envp;
    for (auto& a : argStore)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envStore)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) {
        r.why = "fork failed";
        return r;
    }
    if (pid == 0) {   // only async-signal-safe calls until exec
        const int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int in = open("/dev/null", O_RDONLY);
        if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0)
            _exit(125);
        execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {   // the SIGTRAP of the exec
        r.why = "the child did not stop at its exec (status " + std::to_string(status) + ")";
        return r;
    }
    ptrace(PTRACE_SETOPTIONS, pid, nullptr, reinterpret_cast<void*>(long(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)));
    ptrace(PTRACE_CONT, pid, nullptr, nullptr);
    for (;;) {
        if (waitpid(pid, &status, __WALL) != pid) {
            r.why = "waitpid failed";
            return r;
        }
        if (WIFEXITED(status)) {
            r.exitCode = WEXITSTATUS(status);
            break;
        }
        if (WIFSIGNALED(status))
            break;
        if (WIFSTOPPED(status)) {
            int signal = WSTOPSIG(status);
            if ((status >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
                std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
                std::stringstream s;
                s << maps.rdbuf();
                r.maps = s.str();
                signal = 0;
            } else if (signal == SIGTRAP) {
                signal = 0;
            }
            ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(long(signal)));
        }
    }
    auto slurp = [](const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        std::stringstream s;
        s << f.rdbuf();
        return QByteArray::fromStdString(s.str());
    };
    r.out = slurp(outPath);
    r.err = slurp(errPath);
    if (r.maps.empty() && r.why.empty())
        r.why = "no exit event was seen (is ptrace allowed here?)";
    return r;
}

// The remote backends' libraries among a maps or ldd text, e.g. "libpq".
inline QStringList remoteLibrariesIn(const std::string& text)
{
    QStringList found;
    for (const char* lib : {"libpq.so", "libmariadb.so", "libcurl.so"})
        if (text.find(std::string("/") + lib) != std::string::npos || text.find(std::string(lib)) == 0 ||
            text.find(std::string("\t") + lib) != std::string::npos)
            found << QString::fromLatin1(lib).chopped(3);
    return found;
}

inline std::string ldd(const QString& program)
{
    QProcess p;
    p.start(QStringLiteral("ldd"), {program});
    p.waitForFinished(60000);
    return (p.readAllStandardOutput() + p.readAllStandardError()).toStdString();
}

} // namespace testsupport
