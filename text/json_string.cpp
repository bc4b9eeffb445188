#include "text/json_string.h"

#include <iterator>

namespace locksim::text {

void append_json_string(fmt::memory_buffer& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"': out.append(std::string_view{"\\\""}); break;
      case '\\': out.append(std::string_view{"\\\\"}); break;
      case '\n': out.append(std::string_view{"\\n"}); break;
      case '\r': out.append(std::string_view{"\\r"}); break;
      case '\t': out.append(std::string_view{"\\t"}); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace locksim::text
