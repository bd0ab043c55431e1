// Times as the CLI prints them, the same in every locale.
#pragma once
#include <string>

namespace cli {

// UTC, ISO 8601 ("2026-11-30T17:45:13Z"); "never" for 0 or less.
std::string timeText(double unixSeconds);
// Local time "2026-11-30 18:45:13".
std::string localTimeText(double unixSeconds);

} // namespace cli
