// Golden histories and traces: what every build, g++ and clang++, Release or
// sanitized, must reproduce byte for byte ("same seed, same bytes" across
// machines and compilers). A mismatch names the scenario, seed and fencing
// mode (or the trace and its first differing line); after an intended change,
// scripts/regenerate-golden.sh rewrites both and the diff shows what changed.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "golden_histories.h"
#include "tests/text_files.h"

namespace locksim::golden {
namespace {

using test_support::lines_of;

const std::filesystem::path kGoldenDirectory{LOCKSIM_GOLDEN_DIR};
const std::filesystem::path kTable = kGoldenDirectory / "histories.tsv";
constexpr std::string_view kRegenerate = "after an intended change, run scripts/regenerate-golden.sh and review the diff";

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& file : builtin_scenario_files(LOCKSIM_SCENARIO_DIR)) names.push_back(file.stem().string());
  return names;
}

std::map<std::string, GoldenRow> table_by_run() {
  std::map<std::string, GoldenRow> rows;
  for (const GoldenRow& row : read_golden_table(kTable)) rows.emplace(row.run_name(), row);
  return rows;
}

class GoldenHistories : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenHistories, EverySeedAndFencingModeWritesTheHistoryTheTableHolds) {
  const std::map<std::string, GoldenRow> table = table_by_run();
  const std::filesystem::path file = std::filesystem::path{LOCKSIM_SCENARIO_DIR} / (GetParam() + ".json");
  for (const GoldenRow& row : golden_rows(file)) {
    const auto golden = table.find(row.run_name());
    if (golden == table.end()) {
      ADD_FAILURE() << "golden history missing: " << row.run_name() << " has no row in " << kTable.string() << "; "
                    << kRegenerate;
      continue;
    }
    EXPECT_EQ(row, golden->second) << fmt::format(
        "golden history differs: {}: the table has {} lines, hash {:016x}; this build wrote {} lines, hash {:016x} "
        "(`locksim replay {} --seed {} --fencing {}` prints them); {}",
        row.run_name(), golden->second.lines, golden->second.history_hash, row.lines, row.history_hash, row.scenario,
        row.seed, row.fencing, kRegenerate);
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltInScenarios, GoldenHistories, ::testing::ValuesIn(scenario_names()),
                         [](const ::testing::TestParamInfo<std::string>& scenario) {
                           std::string name = scenario.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(GoldenTable, HasARowForEveryRunOfEveryBuiltInScenarioAndNoOther) {
  std::vector<std::string> expected;
  for (const std::string& scenario : scenario_names()) {
    for (const std::uint64_t seed : kGoldenSeeds) {
      for (const char* fencing : {"off", "on"}) expected.push_back(fmt::format("{} seed {} fencing {}", scenario, seed, fencing));
    }
  }
  std::vector<std::string> listed;
  for (const GoldenRow& row : read_golden_table(kTable)) listed.push_back(row.run_name());
  EXPECT_EQ(listed, expected) << "the table's rows are not the built-in scenarios' runs; " << kRegenerate;
}

// tests/golden/traces.txt: one trace per line, "FILE.trace<TAB>replay arguments".
struct GoldenTrace {
  std::string file;
  std::string arguments;
};

std::vector<GoldenTrace> golden_traces() {
  std::ifstream input{kGoldenDirectory / "traces.txt"};
  std::vector<GoldenTrace> traces;
  std::string line;
  while (std::getline(input, line)) {
    if (line.empty() || line.front() == '#') continue;
    const std::size_t tab = line.find('\t');
    traces.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return traces;
}

std::string stdout_of(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  while (const std::size_t read = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, read);
  pclose(pipe);
  return output;
}

TEST(GoldenTraces, ThreeScenariosReplayLineForLineAsTheGoldenTracesRead) {
  const std::vector<GoldenTrace> traces = golden_traces();
  ASSERT_EQ(traces.size(), 3U);
  for (const GoldenTrace& trace : traces) {
    std::ifstream input{kGoldenDirectory / trace.file, std::ios::binary};
    ASSERT_TRUE(input) << trace.file;
    std::ostringstream golden;
    golden << input.rdbuf();
    const std::vector<std::string> expected = lines_of(golden.str());
    const std::vector<std::string> actual =
        lines_of(stdout_of(fmt::format("{} replay {} 2>/dev/null", LOCKSIM_BINARY, trace.arguments)));
    const std::size_t common = std::min(expected.size(), actual.size());
    for (std::size_t line = 0; line < common; ++line) {
      if (expected[line] != actual[line]) {
        ADD_FAILURE() << "golden trace " << trace.file << " (locksim replay " << trace.arguments << ") differs at line "
                      << line + 1 << ":\n  golden: " << expected[line] << "\n  now:    " << actual[line] << "\n"
                      << kRegenerate;
        break;
      }
    }
    EXPECT_EQ(actual.size(), expected.size()) << "golden trace " << trace.file << " has " << expected.size()
                                              << " lines, the replay printed " << actual.size() << "; " << kRegenerate;
  }
}

}  // namespace
}  // namespace locksim::golden
