#pragma once
// How many characters a UTF-8 text has, not bytes: "⚠" is one character of
// three bytes. What a picture's label or a terminal column is measured in.

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace locksim::text {

[[nodiscard]] inline std::size_t character_count(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char byte) { return (static_cast<unsigned char>(byte) & 0xC0U) != 0x80U; }));
}

}  // namespace locksim::text
