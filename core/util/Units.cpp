#include "core/util/Units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cs {

static std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

std::optional<uint64_t> parseSize(std::string_view text)
{
    std::string s = lower(text);
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    if (s.empty())
        return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || value < 0 || !std::isfinite(value))
        return std::nullopt;
    std::string unit(end);
    while (!unit.empty() && unit.front() == ' ')
        unit.erase(unit.begin());
    double mult = 1;
    if (unit.empty() || unit == "b") mult = 1;
    else if (unit == "k" || unit == "kb" || unit == "kib") mult = 1024.0;
    else if (unit == "m" || unit == "mb" || unit == "mib") mult = 1024.0 * 1024;
    else if (unit == "g" || unit == "gb" || unit == "gib") mult = 1024.0 * 1024 * 1024;
    else if (unit == "t" || unit == "tb" || unit == "tib") mult = 1024.0 * 1024 * 1024 * 1024;
    else return std::nullopt;
    const double bytes = value * mult;
    if (bytes > 9.0e18)
        return std::nullopt;
    return uint64_t(std::llround(bytes));
}

std::optional<int64_t> parseDurationSeconds(std::string_view text)
{
    std::string s = lower(text);
    if (s.empty())
        return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || value < 0 || !std::isfinite(value))
        return std::nullopt;
    const std::string unit(end);
    double mult = 1;
    if (unit.empty() || unit == "s") mult = 1;
    else if (unit == "m" || unit == "min") mult = 60;
    else if (unit == "h") mult = 3600;
    else if (unit == "d") mult = 86400;
    else if (unit == "w") mult = 7 * 86400;
    else return std::nullopt;
    return int64_t(std::llround(value * mult));
}

std::string formatSize(uint64_t bytes)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = double(bytes);
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

std::string formatDuration(double seconds)
{
    char buf[48];
    if (seconds < 0 || !std::isfinite(seconds))
        return "unknown";
    if (seconds < 60)
        std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    else if (seconds < 3600)
        std::snprintf(buf, sizeof buf, "%d min %d s", int(seconds) / 60, int(seconds) % 60);
    else
        std::snprintf(buf, sizeof buf, "%d h %d min", int(seconds) / 3600, int(seconds) % 3600 / 60);
    return buf;
}

} // namespace cs
