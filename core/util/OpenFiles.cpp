#include "core/util/OpenFiles.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <utility>

namespace cs {

namespace {

std::string readLink(const std::string& path)
{
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

std::string commandOf(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

bool below(const std::string& path, const std::string& folder)
{
    return path == folder || (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0
                              && path[folder.size()] == '/');
}

struct Numbers {
    std::vector<std::pair<dev_t, ino_t>> inodes;
    std::vector<std::string> folders;   // real paths, no trailing '/'
};

// The first thing pid holds that we look for, or "".
std::string heldBy(int pid, const Numbers& want)
{
    const std::string base = "/proc/" + std::to_string(pid);
    if (!want.folders.empty()) {
        const std::string cwd = readLink(base + "/cwd");
        for (const auto& f : want.folders)
            if (!cwd.empty() && below(cwd, f))
                return cwd;
    }
    DIR* d = ::opendir((base + "/fd").c_str());
    if (!d)
        return {};
    std::string found;
    while (dirent* de = ::readdir(d)) {
        if (de->d_name[0] == '.')
            continue;
        const std::string link = base + "/fd/" + de->d_name;
        const std::string target = readLink(link);
        if (target.empty() || target[0] != '/')
            continue; // sockets, pipes, anon inodes
        for (const auto& f : want.folders)
            if (below(target, f))
                found = target;
        struct stat st;
        if (found.empty() && !want.inodes.empty() && ::stat(link.c_str(), &st) == 0)
            for (const auto& [dev, ino] : want.inodes)
                if (st.st_dev == dev && st.st_ino == ino)
                    found = target;
        if (!found.empty())
            break;
    }
    ::closedir(d);
    return found;
}

} // namespace

std::vector<FileHolder> processesHolding(const std::vector<std::string>& files, const std::vector<std::string>& folders)
{
    Numbers want;
    for (const auto& f : files) {
        struct stat st;
        if (::stat(f.c_str(), &st) == 0)
            want.inodes.emplace_back(st.st_dev, st.st_ino);
    }
    for (const auto& f : folders) {
        char real[PATH_MAX];
        if (::realpath(f.c_str(), real))
            want.folders.emplace_back(real);
    }
    std::vector<FileHolder> out;
    if (want.inodes.empty() && want.folders.empty())
        return out;
    DIR* proc = ::opendir("/proc");
    if (!proc)
        return out;
    const int self = int(::getpid());
    while (dirent* de = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(de->d_name, &end, 10);
        if (pid <= 0 || *end != '\0' || pid == self)
            continue;
        std::string path = heldBy(int(pid), want);
        if (!path.empty())
            out.push_back({int(pid), commandOf(int(pid)), std::move(path)});
    }
    ::closedir(proc);
    return out;
}

std::vector<std::string> describeHolders(const std::vector<FileHolder>& holders)
{
    std::vector<std::string> out;
    for (const auto& h : holders)
        out.push_back("process " + std::to_string(h.pid) + (h.command.empty() ? "" : " (" + h.command + ")")
                      + " has " + h.path + " open");
    return out;
}

} // namespace cs
