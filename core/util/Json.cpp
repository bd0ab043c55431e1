#include "core/util/Json.h"

#include "core/util/Error.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cs {

Json& Json::operator[](const std::string& key)
{
    if (type_ == Type::Null)
        type_ = Type::Object;
    for (auto& [k, v] : object_)
        if (k == key)
            return v;
    object_.emplace_back(key, Json());
    return object_.back().second;
}

const Json& Json::operator[](const std::string& key) const
{
    static const Json null;
    for (const auto& [k, v] : object_)
        if (k == key)
            return v;
    return null;
}

bool Json::contains(const std::string& key) const
{
    for (const auto& [k, v] : object_)
        if (k == key)
            return true;
    return false;
}

void Json::push(Json value)
{
    if (type_ == Type::Null)
        type_ = Type::Array;
    array_.push_back(std::move(value));
}

bool Json::operator==(const Json& o) const
{
    if (type_ != o.type_)
        return false;
    switch (type_) {
    case Type::Null: return true;
    case Type::Bool: return bool_ == o.bool_;
    case Type::Number: return number_ == o.number_;
    case Type::String: return string_ == o.string_;
    case Type::Array: return array_ == o.array_;
    case Type::Object: return object_ == o.object_;
    }
    return false;
}

static void escapeTo(std::string& out, const std::string& s)
{
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += char(c);
            }
        }
    }
    out += '"';
}

static void numberTo(std::string& out, double v)
{
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    // to_chars: shortest round-trip form, independent of the C locale.
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

void Json::dumpTo(std::string& out, int indent, int depth) const
{
    auto newline = [&](int d) {
        if (indent >= 0) {
            out += '\n';
            out.append(size_t(indent * d), ' ');
        }
    };
    switch (type_) {
    case Type::Null: out += "null"; break;
    case Type::Bool: out += bool_ ? "true" : "false"; break;
    case Type::Number: numberTo(out, number_); break;
    case Type::String: escapeTo(out, string_); break;
    case Type::Array:
        out += '[';
        for (size_t i = 0; i < array_.size(); ++i) {
            if (i)
                out += ',';
            newline(depth + 1);
            array_[i].dumpTo(out, indent, depth + 1);
        }
        if (!array_.empty())
            newline(depth);
        out += ']';
        break;
    case Type::Object:
        out += '{';
        for (size_t i = 0; i < object_.size(); ++i) {
            if (i)
                out += ',';
            newline(depth + 1);
            escapeTo(out, object_[i].first);
            out += indent >= 0 ? ": " : ":";
            object_[i].second.dumpTo(out, indent, depth + 1);
        }
        if (!object_.empty())
            newline(depth);
        out += '}';
        break;
    }
}

std::string Json::dump(int indent) const
{
    std::string out;
    dumpTo(out, indent, 0);
    return out;
}

namespace {

struct Parser {
    std::string_view s;
    size_t pos = 0;

    [[noreturn]] void error(const std::string& what) const
    {
        throw Error("JSON at offset " + std::to_string(pos) + ": " + what);
    }
    void skipSpace()
    {
        while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\r' || s[pos] == '\t'))
            ++pos;
    }
    bool consume(std::string_view word)
    {
        if (s.substr(pos, word.size()) == word) {
            pos += word.size();
            return true;
        }
        return false;
    }
    static void appendUtf8(std::string& out, uint32_t cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }
    uint32_t hex4()
    {
        if (pos + 4 > s.size())
            error("truncated \\u escape");
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = s[pos++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
            else error("bad hex digit in \\u escape");
        }
        return v;
    }
    std::string string()
    {
        ++pos; // opening quote
        std::string out;
        while (true) {
            if (pos >= s.size())
                error("unterminated string");
            const char c = s[pos++];
            if (c == '"')
                return out;
            if (c != '\\') {
                if (static_cast<unsigned char>(c) < 0x20)
                    error("control character in string");
                out += c;
                continue;
            }
            if (pos >= s.size())
                error("unterminated escape");
            const char e = s[pos++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                uint32_t cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && consume("\\u")) {
                    const uint32_t lo = hex4();
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                appendUtf8(out, cp);
                break;
            }
            default: error("bad escape");
            }
        }
    }
    Json value(int depth)
    {
        if (depth > 256)
            error("nesting deeper than 256 levels");
        skipSpace();
        if (pos >= s.size())
            error("unexpected end");
        const char c = s[pos];
        if (c == '{') {
            ++pos;
            Json obj = Json::object();
            skipSpace();
            if (consume("}"))
                return obj;
            while (true) {
                skipSpace();
                if (pos >= s.size() || s[pos] != '"')
                    error("expected a string key");
                std::string key = string();
                skipSpace();
                if (!consume(":"))
                    error("expected ':'");
                obj[key] = value(depth + 1);
                skipSpace();
                if (consume("}"))
                    return obj;
                if (!consume(","))
                    error("expected ',' or '}'");
            }
        }
        if (c == '[') {
            ++pos;
            Json arr = Json::array();
            skipSpace();
            if (consume("]"))
                return arr;
            while (true) {
                arr.push(value(depth + 1));
                skipSpace();
                if (consume("]"))
                    return arr;
                if (!consume(","))
                    error("expected ',' or ']'");
            }
        }
        if (c == '"')
            return Json(string());
        if (consume("true"))
            return Json(true);
        if (consume("false"))
            return Json(false);
        if (consume("null"))
            return Json();
        if (c == '-' || (c >= '0' && c <= '9')) {
            double v = 0;
            const char* begin = s.data() + pos;
            const auto res = std::from_chars(begin, s.data() + s.size(), v);
            if (res.ec != std::errc())
                error("bad number");
            pos += size_t(res.ptr - begin);
            return Json(v);
        }
        error(std::string("unexpected character '") + c + "'");
    }
};

} // namespace

Json Json::parse(std::string_view text)
{
    Parser p{text};
    Json v = p.value(0);
    p.skipSpace();
    if (p.pos != text.size())
        p.error("trailing characters");
    return v;
}

} // namespace cs
