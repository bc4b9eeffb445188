#pragma once
// The hostile names and keys of tests/data/hostile/names.json: quotes,
// backslashes, line breaks, ESC sequences, NUL, DEL, C1 controls, bidi
// overrides, XML's specials and non-characters, emoji, format strings, shell
// text, the longest name allowed. Every output that carries user text must
// escape each for its own format; a test that sends them through an output
// reads them from here (tests/cli/hostile_names_test.cpp, and any new output).

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim::test {

inline std::vector<std::string> hostile_names(const std::string& test_data_directory) {
  std::ifstream input{test_data_directory + "/hostile/names.json"};
  return nlohmann::json::parse(input).at("names").get<std::vector<std::string>>();
}

// True iff `text` holds nothing a terminal would act on instead of printing:
// no control character but the line feed, no DEL, no C1 control (U+0080–U+009F)
// and no bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069).
inline bool safe_for_a_terminal(const std::string& text, std::string* first_problem = nullptr) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const auto next = at + 1 < text.size() ? static_cast<unsigned char>(text[at + 1]) : 0U;
    const auto third = at + 2 < text.size() ? static_cast<unsigned char>(text[at + 2]) : 0U;
    const bool control = (byte < 0x20 && byte != '\n') || byte == 0x7F;
    const bool c1 = byte == 0xC2 && next >= 0x80 && next <= 0x9F;
    const bool bidi = byte == 0xE2 && ((next == 0x80 && third >= 0xAA && third <= 0xAE) ||
                                       (next == 0x81 && third >= 0xA6 && third <= 0xA9));
    if (control || c1 || bidi) {
      if (first_problem != nullptr) {
        const std::size_t line_start = text.rfind('\n', at);
        *first_problem = text.substr(line_start == std::string::npos ? 0 : line_start + 1, 120);
      }
      return false;
    }
  }
  return true;
}

}  // namespace locksim::test
