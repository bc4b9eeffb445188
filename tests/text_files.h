#pragma once
// Test helpers: a file's whole text, and a text's lines, for tests that read
// what a command wrote.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace locksim::test_support {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream input{path, std::ios::binary};
  std::ostringstream contents;
  contents << input.rdbuf();
  return contents.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream input{text};
  for (std::string line; std::getline(input, line);) lines.push_back(line);
  return lines;
}

}  // namespace locksim::test_support
