#include "core/util/Escape.h"

#include <cstdint>
#include <cstdio>

namespace cs {

namespace {

// Length of the valid UTF-8 sequence at s[i] (1..4) and its code point, or 0.
size_t utf8Sequence(std::string_view s, size_t i, uint32_t& cp)
{
    const auto b = [&](size_t k) { return uint8_t(s[i + k]); };
    const uint8_t c = b(0);
    size_t n = 0;
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
    else return 0;
    if (i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(k) & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

// Code points that reorder or break lines in a terminal or a viewer.
bool isInvisibleControl(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F)                 // C1 controls (CSI is 0x9B)
           || cp == 0x2028 || cp == 0x2029            // line and paragraph separators
           || (cp >= 0x202A && cp <= 0x202E)          // bidirectional embeddings and overrides
           || (cp >= 0x2066 && cp <= 0x2069);         // bidirectional isolates
}

} // namespace

std::string escapeControl(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    char buf[16];
    for (size_t i = 0; i < text.size();) {
        const uint8_t c = uint8_t(text[i]);
        uint32_t cp = 0;
        const size_t n = utf8Sequence(text, i, cp);
        if (n == 0) {
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
            ++i;
            continue;
        }
        if (n == 1) {
            switch (c) {
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case 0x1B: out += "\\e"; break;
            default:
                if (c < 0x20 || c == 0x7F) {
                    std::snprintf(buf, sizeof buf, "\\x%02X", c);
                    out += buf;
                } else {
                    out += char(c);
                }
            }
            ++i;
            continue;
        }
        if (isInvisibleControl(cp)) {
            std::snprintf(buf, sizeof buf, "\\u{%04X}", unsigned(cp));
            out += buf;
        } else {
            out.append(text.substr(i, n));
        }
        i += n;
    }
    return out;
}

} // namespace cs
