// The entries filter a person types (the GUI's filter field): words that
// name an index filter, and the rest as the key substring.
//   size>100M  size<=2GiB  size=0      the entry's bytes (parseSize's units)
//   parts>=2   parts<10                the parts the row claims
//   state:unmerged,merge-started       any of the states (ls --state's words)
//   key:PREFIX  scope:REF  repo:ID     exact-byte key prefix, scope, repo id
//   anything else                      the key contains these words
// Words are split on spaces; the key words keep single spaces between them.
// '<' and '>' are strict, '<=' and '>=' inclusive, '=' both bounds.
#pragma once
#include "core/actions-cache/ActionsBackend.h"

#include <optional>
#include <string>
#include <string_view>

namespace cs::actions {

struct EntryFilterText {
    EntryQuery query;          // the filter fields set, order as given
    std::string error;         // not empty: the word that could not be read, and why
};

// base's order is kept; its filters are replaced by what text says.
EntryFilterText parseEntryFilterText(std::string_view text, const EntryQuery& base = {});

} // namespace cs::actions
