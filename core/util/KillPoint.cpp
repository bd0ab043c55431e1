#include "core/util/KillPoint.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace cs {

void killPointFromEnv(const char* variable, const char* point, std::atomic<int>& seen)
{
    const char* spec = std::getenv(variable);
    if (!spec || !*spec)
        return;
    std::string s(spec);
    // "stop:point" stops the process there instead (SIGSTOP), so a test can
    // look at what a command left while its work is held in mid-step.
    int sig = SIGKILL;
    if (s.rfind("stop:", 0) == 0) {
        sig = SIGSTOP;
        s.erase(0, 5);
    }
    int n = 1;
    if (const auto colon = s.rfind(':'); colon != std::string::npos) {
        n = std::atoi(s.c_str() + colon + 1);
        s.resize(colon);
    }
    if (s == point && ++seen == n)
        std::raise(sig);
}

} // namespace cs
