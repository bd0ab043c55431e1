#include "core/actions-cache/KeyFamily.h"

namespace cs::actions {

namespace {

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool isAlnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

} // namespace

std::string keyFamily(std::string_view key)
{
    size_t start = key.size();
    while (start > 0 && isHex(key[start - 1]))
        --start;
    const size_t run = key.size() - start;
    if (run < kFamilyMinHexDigits)
        return std::string(key);
    if (start == 0)
        return std::string();
    // "abc0123456789" ends in hex, but glued to a word it is no hash suffix.
    if (isAlnum(key[start - 1]))
        return std::string(key);
    return std::string(key.substr(0, start - 1));
}

} // namespace cs::actions
