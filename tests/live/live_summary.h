#pragma once
// What the `locksim live` tests share: their scenario files under
// tests/data/live/, the summary `live --json` writes and the histories
// `--history` writes, read back.

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim::live {

inline std::string data(const std::string& name) { return std::string{LOCKSIM_TEST_DATA_DIR} + "/live/" + name; }

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream file{path};
  return nlohmann::json::parse(file);
}

// A history file (`--history`), one JSON object per line.
inline std::vector<nlohmann::json> history_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream file{path};
  for (std::string line; std::getline(file, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// The live summary's counts for one mode.
inline const nlohmann::json& live_mode(const nlohmann::json& summary, const std::string& mode) {
  return summary["scenarios"][0]["modes"][mode];
}

}  // namespace locksim::live
