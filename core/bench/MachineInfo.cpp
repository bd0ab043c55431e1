#include "core/bench/Bench.h"

#include "core/util/Units.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace cs {

static std::string trim(std::string s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
        s.pop_back();
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        ++i;
    return s.substr(i);
}

MachineInfo currentMachine()
{
    MachineInfo m;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                m.cpu = trim(line.substr(colon + 1));
                break;
            }
        }
    }
    if (m.cpu.empty())
        m.cpu = "unknown CPU";
    m.cores = int(std::thread::hardware_concurrency());
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        if (line.rfind("MemTotal:", 0) == 0) {
            m.memoryBytes = std::stoull(trim(line.substr(9))) * 1024;
            break;
        }
    }
    utsname u{};
    if (uname(&u) == 0) {
        m.kernel = std::string(u.sysname) + " " + u.release;
        m.hostname = u.nodename;
    }
    return m;
}

Json MachineInfo::toJsonValue() const
{
    Json j = Json::object();
    j["cpu"] = cpu;
    j["cores"] = cores;
    j["memory_bytes"] = memoryBytes;
    j["kernel"] = kernel;
    j["hostname"] = hostname;
    return j;
}

std::string MachineInfo::toJson() const { return dumpJson(toJsonValue()); }

MachineInfo MachineInfo::fromJson(const Json& j)
{
    MachineInfo m;
    m.cpu = text(field(j, "cpu"));
    m.cores = int(integer(field(j, "cores")));
    m.memoryBytes = unsignedInteger(field(j, "memory_bytes"));
    m.kernel = text(field(j, "kernel"));
    m.hostname = text(field(j, "hostname"));
    return m;
}

std::string MachineInfo::describe() const
{
    return cpu + ", " + std::to_string(cores) + " cores, " + formatSize(memoryBytes) + ", " + kernel;
}

} // namespace cs
