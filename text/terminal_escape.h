#pragma once
// Terminal escaping: user text (a scenario's name, a key, a proc from a
// recorded history) shown on a terminal with every character that would act
// instead of print written out as a visible escape. A name holding ESC [ 2 J
// must not clear the user's screen, a carriage return must not overwrite the
// line it is on, and a right-to-left override must not make a line read as
// something else ("Trojan Source").
//
// Escaped: C0 control characters and DEL (as \n, \r, \t, \e or \xNN), the C1
// controls U+0080–U+009F and the bidirectional overrides and isolates
// U+202A–U+202E and U+2066–U+2069 (as \u{NNNN}), and bytes that are not UTF-8
// (as \xNN). Everything else, other languages' letters included, is kept.
// Pure and deterministic.

#include <string>
#include <string_view>

namespace locksim::text {

// `text` with every character above escaped, line breaks included.
[[nodiscard]] std::string terminal_escaped(std::string_view text);

// The same for text made of whole lines: each '\n' is kept as a line break.
[[nodiscard]] std::string terminal_escaped_lines(std::string_view text);

}  // namespace locksim::text
