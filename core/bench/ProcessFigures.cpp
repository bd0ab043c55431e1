#include "core/bench/Bench.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace cs {

uint64_t rssBytesOf(int pid)
{
    const std::string path = pid > 0 ? "/proc/" + std::to_string(pid) + "/statm" : "/proc/self/statm";
    std::ifstream in(path);
    uint64_t size = 0, resident = 0;
    if (!(in >> size >> resident))
        return 0;
    return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

uint64_t currentRssBytes() { return rssBytesOf(0); }

double processCpuSeconds()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void processCpuSeconds(double& user, double& sys)
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    user = double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6;
    sys = double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) / 1e6;
}

uint64_t peakRssBytes()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return uint64_t(ru.ru_maxrss) * 1024;
}

} // namespace cs
