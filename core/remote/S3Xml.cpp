#include "core/remote/S3Xml.h"

namespace cs::remote::xml {

namespace {

// Finds "<tag>" or "<tag attr...>" (not "<tagX>") at or after from.
size_t findOpen(std::string_view doc, std::string_view tag, size_t from, size_t* contentStart)
{
    while (true) {
        const size_t p = doc.find('<', from);
        if (p == std::string_view::npos || p + 1 + tag.size() > doc.size())
            return std::string_view::npos;
        if (doc.compare(p + 1, tag.size(), tag) == 0) {
            const size_t after = p + 1 + tag.size();
            if (after < doc.size() && (doc[after] == '>' || doc[after] == ' ' || doc[after] == '/')) {
                const size_t gt = doc.find('>', after);
                if (gt == std::string_view::npos)
                    return std::string_view::npos;
                *contentStart = doc[gt - 1] == '/' ? std::string_view::npos : gt + 1; // <tag/> is empty
                return p;
            }
        }
        from = p + 1;
    }
}

bool innerOf(std::string_view doc, std::string_view tag, size_t from, std::string_view* inner, size_t* end)
{
    size_t start = 0;
    const size_t open = findOpen(doc, tag, from, &start);
    if (open == std::string_view::npos)
        return false;
    if (start == std::string_view::npos) { // <tag/>
        *inner = {};
        *end = doc.find('>', open) + 1;
        return true;
    }
    const std::string close = "</" + std::string(tag) + ">";
    const size_t c = doc.find(close, start);
    if (c == std::string_view::npos)
        return false;
    *inner = doc.substr(start, c - start);
    *end = c + close.size();
    return true;
}

} // namespace

std::optional<std::string> firstText(std::string_view doc, std::string_view tag, size_t from, size_t* end)
{
    std::string_view inner;
    size_t e = 0;
    if (!innerOf(doc, tag, from, &inner, &e))
        return std::nullopt;
    if (end)
        *end = e;
    return decodeEntities(inner);
}

std::vector<std::string_view> elements(std::string_view doc, std::string_view tag)
{
    std::vector<std::string_view> out;
    size_t from = 0;
    std::string_view inner;
    size_t end = 0;
    while (innerOf(doc, tag, from, &inner, &end)) {
        out.push_back(inner);
        from = end;
    }
    return out;
}

std::string decodeEntities(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') {
            out += s[i];
            continue;
        }
        const size_t semi = s.find(';', i);
        if (semi == std::string_view::npos || semi - i > 10) {
            out += s[i];
            continue;
        }
        const std::string_view ent = s.substr(i + 1, semi - i - 1);
        uint32_t cp = 0;
        bool ok = true;
        if (ent == "amp") cp = '&';
        else if (ent == "lt") cp = '<';
        else if (ent == "gt") cp = '>';
        else if (ent == "quot") cp = '"';
        else if (ent == "apos") cp = '\'';
        else if (ent.size() > 1 && ent[0] == '#') {
            const bool hex = ent[1] == 'x' || ent[1] == 'X';
            for (char c : ent.substr(hex ? 2 : 1)) {
                const int d = (c >= '0' && c <= '9') ? c - '0'
                              : hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
                if (d < 0 || cp > 0x10FFFF) { ok = false; break; }
                cp = cp * (hex ? 16 : 10) + uint32_t(d);
            }
            ok = ok && cp <= 0x10FFFF;
        } else
            ok = false;
        if (!ok) {
            out += s[i];
            continue;
        }
        // UTF-8 encode.
        if (cp < 0x80) out += char(cp);
        else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) { out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
        else { out += char(0xF0 | (cp >> 18)); out += char(0x80 | ((cp >> 12) & 0x3F)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
        i = semi;
    }
    return out;
}

std::string escape(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out += c;
        }
    }
    return out;
}

} // namespace cs::remote::xml
