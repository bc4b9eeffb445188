// The limits on what a user writes, as the binary enforces them: past each, a
// clear message naming the limit and exit 2 (the scenario file limits are in
// tests/data/bad-scenarios and the history limits in tests/data/bad-histories,
// each with its exact message). And the event limit of one run: reached, the
// run is reported as stopped short (tests/data/limits/event-limit.json).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "locksim_process.h"

namespace locksim::cli_test {
namespace {

std::string expected_message(const std::string& name) {
  std::ifstream input{std::string{LOCKSIM_TEST_DATA_DIR} + "/limits/" + name + ".expected"};
  std::string line;
  std::getline(input, line);
  return line;
}

TEST(Limits, ARunThatReachesTheEventLimitIsReportedAsStoppedShort) {
  const std::string file = std::string{LOCKSIM_TEST_DATA_DIR} + "/limits/event-limit.json";
  const std::string summary_file = scratch("event-limit-summary.json");
  const Result run = run_locksim("run " + file + " --seed 1 --fencing off --quiet --json " + summary_file);
  EXPECT_EQ(run.exit_code, 0) << run.output;  // its expectation: stopped_short > 0
  std::ifstream input{summary_file};
  const nlohmann::json summary = nlohmann::json::parse(input);
  const nlohmann::json& mode = summary.at("scenarios").at(0).at("modes").at("fencing-off");
  EXPECT_EQ(mode.at("stopped_short"), 1);
  EXPECT_EQ(mode.at("stats").at("events"), 2'000'000);
  EXPECT_EQ(mode.at("stopped_short_example").at("why").get<std::string>(), expected_message("event-limit"));
}

TEST(Limits, AScenarioFileLargerThanFourMebibytesIsRefusedWithoutReadingItWhole) {
  const std::string file = scratch("huge-scenario.json");
  {
    std::ofstream output{file};
    output << R"({"name": "huge", "description": ")" << std::string(std::size_t{5} << 20, 'x') << "\"}";
  }
  const Result run = run_locksim("run " + file);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find(file + ": the file is larger than 4 MiB (4194304 bytes), the most a scenario file may have"),
            std::string::npos)
      << run.output;
}

TEST(Limits, AFirstSeedPastTheLimitIsRefusedOnTheCommandLine) {
  const Result run = run_locksim("run control-no-faults --first-seed 1000000000000000001");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("--first-seed"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("1000000000000000000"), std::string::npos) << run.output;
  const Result replay = run_locksim("replay control-no-faults --seed 18446744073709551615");
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
}

TEST(Limits, AStuckAfterPastTheLongestTimeOfAHistoryIsRefused) {
  const std::string history = std::string{LOCKSIM_TEST_DATA_DIR} + "/histories/clean-handover.jsonl";
  const Result check = run_locksim("check " + history + " --stuck-after 300000h");
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_NE(check.output.find("--stuck-after: expected at most 1000000000000000000 ns (about 31.7 years, as every "
                              "time in a history), got \"300000h\""),
            std::string::npos)
      << check.output;
}

}  // namespace
}  // namespace locksim::cli_test

namespace locksim::cli_test {
namespace {

TEST(Limits, MergeRefusesASummaryFileLargerThan256MebibytesBeforeReadingIt) {
  const std::string file = scratch("huge-summary.json");
  { std::ofstream{file}; }
  std::filesystem::resize_file(file, (std::uintmax_t{256} << 20) + 1);  // sparse: no disk is written
  const Result merge = run_locksim("merge " + file + " --json " + scratch("merged.json"));
  std::filesystem::remove(file);
  EXPECT_EQ(merge.exit_code, 2);
  EXPECT_NE(merge.output.find(file + ": the file has 268435457 bytes; a summary may have at most 268435456 (256 MiB)"),
            std::string::npos)
      << merge.output;
}

}  // namespace
}  // namespace locksim::cli_test
