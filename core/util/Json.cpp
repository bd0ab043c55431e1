#include "core/util/Json.h"

#include "core/util/Error.h"

#include <cmath>

namespace cs {

namespace {
constexpr int kMaxDepth = 256;
} // namespace

std::string dumpJson(const Json& value, int indent)
{
    return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json parseJson(std::string_view text, const std::string& what)
{
    // The callback sees every value with its depth: refusing here keeps a
    // hostile document from building a tree deep enough to matter.
    const Json::parser_callback_t limit = [](int depth, Json::parse_event_t, Json&) {
        if (depth > kMaxDepth)
            throw Error("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), limit);
    } catch (const Json::parse_error& e) {
        // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 3: ..."; keep the reason.
        std::string reason = e.what();
        const size_t colon = reason.find(": ");
        if (colon != std::string::npos)
            reason = reason.substr(colon + 2);
        throw Error(what + ": not JSON at byte " + std::to_string(e.byte) + " (" + reason + ")");
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
}

const Json& field(const Json& object, std::string_view key)
{
    static const Json null;
    if (!object.is_object())
        return null;
    const auto it = object.find(key);
    return it == object.end() ? null : *it;
}

const Json& elements(const Json& array)
{
    static const Json empty = Json::array();
    return array.is_array() ? array : empty;
}

std::string text(const Json& value, const std::string& fallback)
{
    return value.is_string() ? value.get<std::string>() : fallback;
}

double number(const Json& value, double fallback)
{
    return value.is_number() ? value.get<double>() : fallback;
}

int64_t integer(const Json& value, int64_t fallback)
{
    if (value.is_number_integer())
        return value.get<int64_t>();
    if (value.is_number_float()) {
        const double d = value.get<double>();
        return std::isfinite(d) && std::fabs(d) < 9.2e18 ? int64_t(d) : fallback;
    }
    return fallback;
}

uint64_t unsignedInteger(const Json& value, uint64_t fallback)
{
    if (value.is_number_unsigned())
        return value.get<uint64_t>();
    if (value.is_number_integer())
        return value.get<int64_t>() < 0 ? fallback : uint64_t(value.get<int64_t>());
    if (value.is_number_float()) {
        const double d = value.get<double>();
        return std::isfinite(d) && d >= 0 && d < 1.8e19 ? uint64_t(d) : fallback;
    }
    return fallback;
}

bool boolean(const Json& value, bool fallback)
{
    return value.is_boolean() ? value.get<bool>() : fallback;
}

} // namespace cs
