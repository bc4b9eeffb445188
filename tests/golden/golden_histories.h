#pragma once
// The golden histories: every built-in scenario, seeds 1 to 3, fencing off and
// on, each run's history summed up as its line count and its history hash
// (the recorder's hash of every line, the one `locksim replay` prints as
// "history hash …"). tests/golden/histories.tsv holds the table every build,
// g++ and clang++ alike, must reproduce; regenerate_golden writes it
// (scripts/regenerate-golden.sh) after an intended change, so that the diff
// of the table shows in review which runs changed.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace locksim::golden {

struct GoldenRow {
  std::string scenario;  // the file's stem, as `locksim list` names it
  std::uint64_t seed = 0;
  std::string fencing;  // "off" or "on"
  std::uint64_t lines = 0;
  std::uint64_t history_hash = 0;

  // "h01-gc-pause-past-lease seed 2 fencing off": what a mismatch names.
  [[nodiscard]] std::string run_name() const;
  friend bool operator==(const GoldenRow&, const GoldenRow&) = default;
};

// The seeds every scenario is run with.
inline constexpr std::uint64_t kGoldenSeeds[] = {1, 2, 3};

// The built-in scenario files (`directory`/*.json), in name order.
[[nodiscard]] std::vector<std::filesystem::path> builtin_scenario_files(const std::filesystem::path& directory);

// The rows of one scenario file, as this build runs it: seeds, then fencing off and on.
[[nodiscard]] std::vector<GoldenRow> golden_rows(const std::filesystem::path& scenario_file);

// The table file: a comment header, then one tab-separated row per run.
[[nodiscard]] std::string golden_table_text(const std::vector<GoldenRow>& rows);
// Reads what golden_table_text wrote. Throws std::runtime_error naming the line on anything else.
[[nodiscard]] std::vector<GoldenRow> read_golden_table(const std::filesystem::path& table_file);

}  // namespace locksim::golden
