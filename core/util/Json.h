// The one JSON stack of cachescope: nlohmann::ordered_json (header-only, no
// Qt), shared by the core's documents (GC stats, benchmark runs, the
// actions-cache reports) and the CLI's --json output, so a value is built
// once and printed as built. Integers stay exact 64-bit integers (GC byte
// counts above 2^53 print every digit); object keys keep insertion order.
//
// Helpers here cover what nlohmann leaves to the caller:
//  - dumpJson(): bytes that are not valid UTF-8 (a hostile cache key) come
//    out as U+FFFD instead of throwing, so every output stays valid JSON;
//  - parseJson(): one cs::Error naming the document and the byte offset,
//    nesting deeper than 256 levels refused;
//  - lenient reads (field, text, number, integer, ...) for documents we wrote
//    ourselves and read back (a missing key or another type gives the
//    fallback; nlohmann's const operator[] on a missing key is undefined).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace cs {

using Json = nlohmann::ordered_json;

// Compact when indent < 0, else pretty-printed with that many spaces.
std::string dumpJson(const Json& value, int indent = -1);
// Throws cs::Error "WHAT: not JSON at byte N (...)".
Json parseJson(std::string_view text, const std::string& what);

// The member `key` of an object, else a null.
const Json& field(const Json& object, std::string_view key);
// The elements of an array, else none (iterating a number would give itself).
const Json& elements(const Json& array);
std::string text(const Json& value, const std::string& fallback = {});
double number(const Json& value, double fallback = 0);
int64_t integer(const Json& value, int64_t fallback = 0);
uint64_t unsignedInteger(const Json& value, uint64_t fallback = 0);
bool boolean(const Json& value, bool fallback = false);

} // namespace cs
