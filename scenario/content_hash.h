#pragma once
// A stable fingerprint of a scenario file's bytes (64-bit FNV-1a), kept in
// the run summary so `locksim merge` can refuse shards run from different
// versions of a file. Not cryptographic: it catches edits, not forgeries.

#include <cstdint>
#include <string_view>

namespace locksim::scenario {

[[nodiscard]] constexpr std::uint64_t content_hash(std::string_view bytes) {
  constexpr std::uint64_t kOffsetBasis = 14695981039346656037ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = kOffsetBasis;
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= kPrime;
  }
  return hash;
}

}  // namespace locksim::scenario
