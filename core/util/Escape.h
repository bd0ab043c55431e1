// Escaping of untrusted text (keys, versions, scopes, paths, error messages
// that quote them) before it reaches a terminal or a line-oriented listing:
// a key holding "\n" must not forge a row of `store ls`, and one holding ESC
// sequences must not move the cursor or retitle the terminal. The one place
// that decides what is printable; JSON output never goes through it (JSON
// keeps the exact bytes, escaped by the JSON writer).
#pragma once
#include <string>
#include <string_view>

namespace cs {

// Valid UTF-8 text with every control character (C0, DEL, C1) and every
// byte that is not part of valid UTF-8 replaced by a visible escape:
// \n \r \t \e and \\ for the common ones, \xNN for the other bytes,
// \u{NNNN} for C1 controls and the Unicode line/paragraph separators and
// bidirectional overrides. Printable text is returned unchanged, so
// ordinary keys look the same; the mapping is injective (a backslash is
// doubled), so two different keys never print alike.
std::string escapeControl(std::string_view text);

} // namespace cs
