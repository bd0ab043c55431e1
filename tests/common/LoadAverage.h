// The 1-minute load average and the CPU count ("3.41 on 2 CPUs"), printed
// next to wall-clock figures (GUI stalls) a test reports but does not assert.
#pragma once
#include <QString>

#include <cstdlib>
#include <thread>

namespace testsupport {

inline QString loadAverageText()
{
    double load = 0;
    if (getloadavg(&load, 1) != 1)
        return QStringLiteral("unknown");
    return QStringLiteral("%1 on %2 CPUs").arg(load, 0, 'f', 2).arg(std::thread::hardware_concurrency());
}

} // namespace testsupport
