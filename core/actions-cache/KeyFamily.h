// Key families: the keys a workflow writes again and again with a new hash
// at the end (`Linux-node-<hashFiles(package-lock.json)>`,
// `buildkit-blob-1-sha256:<digest>`), grouped under what stays the same.
//
// The rule (issue 28): a family is the key with a trailing run of at least
// 8 hex digits, and one separator before it, removed. The run is the
// longest run of [0-9A-Fa-f] that ends the key; it counts only when it is
// the whole key (a key that is only hex: family "") or when the byte before
// it is a separator (not a letter or digit), which goes too. A key with no
// such run is its own family.
#pragma once
#include <string>
#include <string_view>

namespace cs::actions {

constexpr size_t kFamilyMinHexDigits = 8;

std::string keyFamily(std::string_view key);

} // namespace cs::actions
