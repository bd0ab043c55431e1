// SHA-256 of a short message in plain C++ (Sha256Compact.cpp says why):
// Sha256::of uses it up to kCompactSha256Limit bytes.
#pragma once
#include "core/util/Sha256.h"

namespace cs {

inline constexpr size_t kCompactSha256Limit = 4096;

Digest compactSha256(const void* data, size_t size);

} // namespace cs
