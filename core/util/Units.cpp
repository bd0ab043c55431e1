#include "core/util/Units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

namespace cs {

// Numbers parse and print with <charconv>, which ignores the C locale: under
// de_DE.UTF-8 "1.5MiB" is 1.5 MiB and "1,5MiB" is an error, as everywhere.
static std::optional<double> leadingNumber(const std::string& s, size_t& used)
{
    double value = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::fixed);
    if (r.ec != std::errc() || value < 0 || !std::isfinite(value))
        return std::nullopt;
    used = size_t(r.ptr - s.data());
    return value;
}

static std::string fixed1(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 1);
    return std::string(buf, r.ptr);
}

static std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

std::optional<int64_t> parseInteger(std::string_view text)
{
    // from_chars reads base 10 only: no 0x or leading-zero octal, no sign but '-'.
    int64_t value = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value, 10);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

struct Unit {
    const char* name;
    double multiplier;
};

// A number followed by one of units ("" for none), in any case; when
// spaced, spaces may stand between the two and at the end. The number
// times the unit's multiplier, or nullopt.
static std::optional<double> numberWithUnit(std::string_view text, bool spaced, std::initializer_list<Unit> units)
{
    std::string s = lower(text);
    while (spaced && !s.empty() && s.back() == ' ')
        s.pop_back();
    if (s.empty())
        return std::nullopt;
    size_t used = 0;
    const auto number = leadingNumber(s, used);
    if (!number)
        return std::nullopt;
    std::string unit = s.substr(used);
    while (spaced && !unit.empty() && unit.front() == ' ')
        unit.erase(unit.begin());
    for (const Unit& u : units)
        if (unit == u.name)
            return *number * u.multiplier;
    return std::nullopt;
}

std::optional<uint64_t> parseSize(std::string_view text)
{
    constexpr double k = 1024.0, m = k * k, g = m * k, t = g * k;
    const auto bytes = numberWithUnit(text, true, {{"", 1}, {"b", 1}, {"k", k}, {"kb", k}, {"kib", k}, {"m", m},
                                                   {"mb", m}, {"mib", m}, {"g", g}, {"gb", g}, {"gib", g}, {"t", t},
                                                   {"tb", t}, {"tib", t}});
    if (!bytes || *bytes > 9.0e18)
        return std::nullopt;
    return uint64_t(std::llround(*bytes));
}

std::optional<int64_t> parseDurationSeconds(std::string_view text)
{
    const auto seconds = numberWithUnit(text, false, {{"", 1}, {"s", 1}, {"m", 60}, {"min", 60}, {"h", 3600},
                                                      {"d", 86400}, {"w", 7 * 86400}});
    // At most about 31 million years: a duration in milliseconds (the cache
    // server's clock) must still fit an int64_t, and llround of a value past
    // its range is undefined.
    if (!seconds || *seconds > 1.0e15)
        return std::nullopt;
    return int64_t(std::llround(*seconds));
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
    if (u == 0)
        return std::to_string(bytes) + " B";
    return fixed1(v) + " " + units[u];
}

std::string formatDuration(double seconds)
{
    char buf[48];
    if (seconds < 0 || !std::isfinite(seconds))
        return "unknown";
    if (seconds < 60)
        return fixed1(seconds) + " s";
    if (seconds < 3600)
        std::snprintf(buf, sizeof buf, "%d min %d s", int(seconds) / 60, int(seconds) % 60);
    else
        std::snprintf(buf, sizeof buf, "%d h %d min", int(seconds) / 3600, int(seconds) % 3600 / 60);
    return buf;
}

} // namespace cs
