#pragma once
// Test helper: the malformed-input corpus in tests/data/bad-histories/. Each
// NAME.jsonl has a NAME.expected holding the exact error after "FILE:" —
// "LINE: what was expected" — so tests compare whole messages.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace locksim::checker::testing {

struct BadHistory {
  std::string path;
  std::string expected_after_path;  // "2: expected field `writer` ..."
};

inline std::string read_whole_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<BadHistory> bad_history_corpus() {
  std::vector<BadHistory> corpus;
  const std::filesystem::path folder = std::filesystem::path{LOCKSIM_TEST_DATA_DIR} / "bad-histories";
  for (const auto& entry : std::filesystem::directory_iterator{folder}) {
    if (entry.path().extension() != ".jsonl") {
      continue;
    }
    std::filesystem::path expected = entry.path();
    expected.replace_extension(".expected");
    std::string message = read_whole_file(expected.string());
    while (!message.empty() && message.back() == '\n') {
      message.pop_back();
    }
    corpus.push_back(BadHistory{entry.path().string(), message});
  }
  // Directory order is the file system's: sort for a stable test order.
  std::sort(corpus.begin(), corpus.end(), [](const BadHistory& left, const BadHistory& right) {
    return left.path < right.path;
  });
  return corpus;
}

}  // namespace locksim::checker::testing
