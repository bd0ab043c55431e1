// Byte sizes and durations as people type them: "8MiB", "64k", "1.5G",
// "30d", "12h". Binary multiples for K/M/G/T with or without "iB".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cs {

// The one parser of a whole number a user types (CLI options, bench
// parameters): decimal digits with an optional leading '-', nothing else.
// "010" is 10; "0x10", "0o7", "+1", " 1", "1e3" and an overflow are refused.
std::optional<int64_t> parseInteger(std::string_view text);
std::optional<uint64_t> parseSize(std::string_view text);
std::optional<int64_t> parseDurationSeconds(std::string_view text); // s, m, h, d, w
std::string formatSize(uint64_t bytes);                               // "8.0 MiB"
std::string formatDuration(double seconds);                           // "1.2 s", "3 min 4 s"

} // namespace cs
