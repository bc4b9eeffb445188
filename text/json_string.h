#pragma once
// A string as a JSON string literal, with the escapes every history locksim
// writes uses: the simulator's recorder writes its lines with it, and the
// checker holds a string `value` in the same form, so that a value read back
// from a line is the very text on it.

#include <string_view>

#include <fmt/format.h>

namespace locksim::text {

// Appends `text` quoted: `"` and `\` escaped, \n \r \t as such, other
// control characters as \u00XX, everything else (UTF-8 included) as is.
void append_json_string(fmt::memory_buffer& out, std::string_view text);

}  // namespace locksim::text
