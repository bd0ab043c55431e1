#include "HumanTime.h"

#include <cmath>
#include <ctime>

namespace cli {

static std::string timeWith(double unixSeconds, const char* format, bool utc)
{
    const auto t = std::time_t(std::floor(unixSeconds));
    std::tm tm{};
    if (utc)
        ::gmtime_r(&t, &tm);
    else
        ::localtime_r(&t, &tm);
    char buf[64];
    // Only numeric fields: strftime prints them the same in every locale.
    return std::strftime(buf, sizeof buf, format, &tm) ? buf : "-";
}

std::string timeText(double unixSeconds)
{
    return unixSeconds <= 0 ? "never" : timeWith(unixSeconds, "%Y-%m-%dT%H:%M:%SZ", true);
}

std::string localTimeText(double unixSeconds) { return timeWith(unixSeconds, "%Y-%m-%d %H:%M:%S", false); }

} // namespace cli
