#include "core/bench/Bench.h"

#include "core/util/Error.h"
#include "core/util/Units.h"

#include <charconv>
#include <cmath>

namespace cs {

const char* paramKindName(ParamKind k)
{
    switch (k) {
    case ParamKind::Int: return "int";
    case ParamKind::Size: return "size";
    case ParamKind::Double: return "number";
    case ParamKind::Bool: return "bool";
    case ParamKind::String: return "text";
    case ParamKind::Path: return "path";
    }
    return "text";
}

Params::Params(std::vector<ParamSpec> specs, std::map<std::string, std::string> values)
    : specs_(std::move(specs)), values_(std::move(values))
{
}

std::pair<std::string, std::string> Params::splitAssignment(const std::string& text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw Error("parameter '" + text + "' is not of the form name=value");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

const ParamSpec& Params::spec(const std::string& name) const
{
    for (const auto& s : specs_)
        if (s.name == name)
            return s;
    std::string known;
    for (const auto& s : specs_)
        known += (known.empty() ? "" : ", ") + s.name;
    throw Error("unknown parameter '" + name + "' (known: " + known + ")");
}

std::string Params::raw(const std::string& name) const
{
    const ParamSpec& s = spec(name);
    auto it = values_.find(name);
    return it != values_.end() ? it->second : s.defaultValue;
}

static std::optional<int64_t> parseInt(const std::string& v) { return parseInteger(v); }

static std::optional<bool> parseBool(const std::string& v)
{
    if (v == "true" || v == "1" || v == "yes" || v == "on")
        return true;
    if (v == "false" || v == "0" || v == "no" || v == "off" || v.empty())
        return false;
    return std::nullopt;
}

static std::optional<double> parseDouble(const std::string& v)
{
    double out = 0;
    const auto res = std::from_chars(v.data(), v.data() + v.size(), out);
    if (res.ec != std::errc() || res.ptr != v.data() + v.size() || !std::isfinite(out))
        return std::nullopt;
    return out;
}

void Params::validate() const
{
    for (const auto& [name, value] : values_) {
        const ParamSpec& s = spec(name);
        bool ok = true;
        switch (s.kind) {
        case ParamKind::Int: ok = parseInt(value).has_value(); break;
        case ParamKind::Size: ok = parseSize(value).has_value(); break;
        case ParamKind::Double: ok = parseDouble(value).has_value(); break;
        case ParamKind::Bool: ok = parseBool(value).has_value(); break;
        default: break;
        }
        if (!ok)
            throw Error("parameter " + name + "=" + value + " is not a valid " + paramKindName(s.kind));
    }
}

int64_t Params::integer(const std::string& name) const
{
    const auto v = parseInt(raw(name));
    if (!v)
        throw Error("parameter " + name + "=" + raw(name) + " is not an integer");
    return *v;
}

uint64_t Params::size(const std::string& name) const
{
    const auto v = parseSize(raw(name));
    if (!v)
        throw Error("parameter " + name + "=" + raw(name) + " is not a size such as 8MiB");
    return *v;
}

double Params::number(const std::string& name) const
{
    const auto v = parseDouble(raw(name));
    if (!v)
        throw Error("parameter " + name + "=" + raw(name) + " is not a number");
    return *v;
}

bool Params::flag(const std::string& name) const
{
    const auto v = parseBool(raw(name));
    if (!v)
        throw Error("parameter " + name + "=" + raw(name) + " is not true or false");
    return *v;
}

std::string Params::text(const std::string& name) const { return raw(name); }

std::map<std::string, std::string> Params::effective() const
{
    std::map<std::string, std::string> out;
    for (const auto& s : specs_)
        out[s.name] = raw(s.name);
    return out;
}

} // namespace cs
