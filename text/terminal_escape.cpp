#include "text/terminal_escape.h"

#include <cstdint>
#include <optional>

#include <fmt/format.h>

namespace locksim::text {
namespace {

// The code point of the UTF-8 sequence starting at `text[at]` and its length,
// or nullopt when the bytes there are not well-formed UTF-8.
struct CodePoint {
  std::uint32_t value = 0;
  std::size_t length = 0;
};

std::optional<CodePoint> decode_utf8(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t offset) { return static_cast<unsigned char>(text[at + offset]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t value = 0;
  std::uint32_t smallest = 0;  // below this the sequence is an overlong form
  if (lead < 0x80) return CodePoint{lead, 1};
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2, value = lead & 0x1FU, smallest = 0x80;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3, value = lead & 0x0FU, smallest = 0x800;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4, value = lead & 0x07U, smallest = 0x10000;
  } else {
    return std::nullopt;
  }
  if (at + length > text.size()) return std::nullopt;
  for (std::size_t offset = 1; offset < length; ++offset) {
    if ((byte(offset) & 0xC0U) != 0x80U) return std::nullopt;
    value = (value << 6U) | (byte(offset) & 0x3FU);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return std::nullopt;
  return CodePoint{value, length};
}

bool acts_instead_of_printing(std::uint32_t code_point) {
  return code_point < 0x20 || code_point == 0x7F || (code_point >= 0x80 && code_point <= 0x9F) ||
         (code_point >= 0x202A && code_point <= 0x202E) || (code_point >= 0x2066 && code_point <= 0x2069);
}

void append_escape(std::string& out, std::uint32_t code_point) {
  switch (code_point) {
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case 0x1B: out += "\\e"; return;
    default: break;
  }
  if (code_point < 0x80) {
    out += fmt::format("\\x{:02x}", code_point);
  } else {
    out += fmt::format("\\u{{{:04x}}}", code_point);
  }
}

std::string escaped(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const std::optional<CodePoint> point = decode_utf8(text, at);
    if (!point) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[at]));
      ++at;
      continue;
    }
    if (acts_instead_of_printing(point->value) && !(keep_line_breaks && point->value == '\n')) {
      append_escape(out, point->value);
    } else {
      out.append(text.substr(at, point->length));
    }
    at += point->length;
  }
  return out;
}

}  // namespace

std::string terminal_escaped(std::string_view text) { return escaped(text, false); }

std::string terminal_escaped_lines(std::string_view text) { return escaped(text, true); }

}  // namespace locksim::text
