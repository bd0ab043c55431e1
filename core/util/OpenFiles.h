// Which other processes of this host hold a file, or something below a
// folder, open: read from /proc/<pid>/fd (and each process's cwd), the way
// lsof and fuser see it. Used to tell whether a server runs beside us before
// a write. Only processes whose /proc entries we may read are seen (all of
// them as root, our own user's otherwise); this process is never listed.
#pragma once
#include <string>
#include <vector>

namespace cs {

struct FileHolder {
    int pid = 0;
    std::string command;   // /proc/<pid>/comm ("node")
    std::string path;      // what it holds, as the kernel names it
};

// files are compared by device and inode (so a relative path or a link to
// the file still matches); folders by path: an open descriptor whose target
// lies below one (or a process whose working folder does). Missing files are
// skipped. At most one holder per process (the first thing found).
std::vector<FileHolder> processesHolding(const std::vector<std::string>& files,
                                         const std::vector<std::string>& folders = {});

// "process 4242 (node) has /srv/.data/sqlite.db open", one per holder.
std::vector<std::string> describeHolders(const std::vector<FileHolder>& holders);

} // namespace cs
