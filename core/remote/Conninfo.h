// Database locations as text, without libpq: safe to print.
#pragma once
#include <string>

namespace cs::remote {

// Removes a password from a libpq URL or key=value string (for messages).
std::string redactConninfo(const std::string& conninfo);

} // namespace cs::remote
