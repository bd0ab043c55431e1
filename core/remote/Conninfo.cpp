#include "core/remote/Conninfo.h"

#include <regex>

namespace cs::remote {

std::string redactConninfo(const std::string& conninfo)
{
    // URL form: scheme://user:password@host -> scheme://user@host
    static const std::regex url(R"(^([a-z]+://[^:/@]*):[^@]*@)");
    std::string s = std::regex_replace(conninfo, url, "$1@");
    // key=value form and URL query parameters.
    static const std::regex kv(R"((password\s*=\s*)('[^']*'|[^\s&]*))", std::regex::icase);
    return std::regex_replace(s, kv, "$1***");
}

} // namespace cs::remote
