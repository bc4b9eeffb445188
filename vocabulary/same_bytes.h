#pragma once
// same_bytes<N>(a, b): whether the N bytes at `a` and `b` are equal, for a
// length known at compile time, by loads of exactly 1, 2, 4 or 8 bytes (two
// overlapping ones for the lengths between). The reader compares field and
// event names with constant texts for every line: GCC calls memcmp for some
// constant lengths instead of inlining it, and copying a few bytes into a
// wider zeroed word stalls on the store.

#include <cstdint>
#include <cstring>

namespace locksim::vocabulary {

namespace same_bytes_detail {
template <class Word>
inline Word load(const char* bytes) {
  Word word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}
template <class Word, std::size_t kLength>
inline bool same_ends(const char* left, const char* right) {
  return load<Word>(left) == load<Word>(right) &&
         load<Word>(left + kLength - sizeof(Word)) == load<Word>(right + kLength - sizeof(Word));
}
}  // namespace same_bytes_detail

template <std::size_t kLength>
[[gnu::always_inline]] inline bool same_bytes(const char* left, const char* right) {
  using namespace same_bytes_detail;
  static_assert(kLength <= 16);
  if constexpr (kLength == 0) {
    return true;
  } else if constexpr (kLength == 1) {
    return left[0] == right[0];
  } else if constexpr (kLength == 2) {
    return load<std::uint16_t>(left) == load<std::uint16_t>(right);
  } else if constexpr (kLength == 3) {
    return same_ends<std::uint16_t, kLength>(left, right);
  } else if constexpr (kLength == 4) {
    return load<std::uint32_t>(left) == load<std::uint32_t>(right);
  } else if constexpr (kLength < 8) {
    return same_ends<std::uint32_t, kLength>(left, right);
  } else if constexpr (kLength == 8) {
    return load<std::uint64_t>(left) == load<std::uint64_t>(right);
  } else {
    return same_ends<std::uint64_t, kLength>(left, right);
  }
}

}  // namespace locksim::vocabulary
