// The `locksim` binary as a user runs it: exit codes, messages, files written.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "locksim_process.h"

namespace {

using locksim::cli_test::read_text;
using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;
using locksim::cli_test::scratch;
using locksim::cli_test::table_of;

const std::string kScenarios = LOCKSIM_SCENARIO_DIR;
// Replay commands start with the path locksim was invoked by.
const std::string kLocksim = LOCKSIM_BINARY;
const std::string kBadScenarios = std::string{LOCKSIM_TEST_DATA_DIR} + "/bad-scenarios";

TEST(RunCommand, EveryBadScenarioIsExitTwoWithItsMessage) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator{kBadScenarios}) {
    if (entry.path().extension() != ".json") continue;
    std::string expected = read_text(std::filesystem::path{entry.path()}.replace_extension(".expected"));
    expected.erase(expected.find_last_not_of('\n') + 1);
    // The binary names the file as given on the command line; the corpus
    // messages name it bare, so run from the corpus directory.
    const Result result = run_locksim("run " + entry.path().string() + " --seeds 1");
    EXPECT_EQ(result.exit_code, 2) << entry.path();
    EXPECT_NE(result.output.find(kBadScenarios + "/" + expected), std::string::npos)
        << entry.path() << "\n" << result.output;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(RunCommand, BadFlagsAreExitTwo) {
  EXPECT_EQ(run_locksim("run " + kScenarios + " --fencing sometimes").exit_code, 2);
  EXPECT_EQ(run_locksim("run " + kScenarios + " --shard 3/2").exit_code, 2);
  EXPECT_EQ(run_locksim("run /nonexistent/scenario.json").exit_code, 2);
  EXPECT_EQ(run_locksim("run " + kScenarios + " --seed 3 --seeds 4").exit_code, 2);
  EXPECT_EQ(run_locksim("frobnicate").exit_code, 2);
}

TEST(RunCommand, TheBuiltinSuitePassesAndWritesJsonAndJunit) {
  const std::string json = scratch("suite.json");
  const std::string junit = scratch("suite.xml");
  const Result result = run_locksim("run " + kScenarios + " --seeds 20 --json " + json + " --junit " + junit);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find(" scenarios: "), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find(" failed\n"), std::string::npos) << result.output;
  EXPECT_EQ(table_of(result.output).find(" not judged"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("faults F/T: "), std::string::npos) << "the legend under the table";
  const nlohmann::json summary = nlohmann::json::parse(read_text(json));
  EXPECT_TRUE(summary["ok"].get<bool>());
  EXPECT_GE(summary["scenarios"].size(), 15u);
  EXPECT_NE(read_text(junit).find("<testsuites name=\"locksim\""), std::string::npos);
}

TEST(RunCommand, AFailedExpectationIsExitOneWithTheReplayCommand) {
  const std::string scenario = scratch("expects-nothing.json");
  std::ofstream{scenario} << R"({"name": "expects-nothing", "lock": {"lease": "1s"},
      "workers": {"work": {"dist": "uniform", "min": "500ms", "max": "2s"}},
      "expect": {"fencing-off": {"stale_write": "==0"}}})";
  const Result result = run_locksim("run " + scenario + " --seeds 5");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("FAIL expects-nothing"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(kLocksim + " replay " + scenario + " --seed "), std::string::npos) << result.output;
}

TEST(RunCommand, ARunCutShortByItsTimeLimitFailsWithItsExampleAndReplayCommand) {
  const std::string scenario = scratch("too-short.json");
  std::ofstream{scenario} << R"({"name": "too-short", "duration": "5s", "workers": {"count": 2, "work": "1s"},
      "workload": {"kind": "counter", "jobs": 10}})";
  const std::string json = scratch("too-short-summary.json");
  const Result result = run_locksim("run " + scenario + " --seeds 3 --json " + json);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("fencing-off: expected stopped_short ==0, got 3"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("stopped short: seed 1: time limit 5s reached with"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("replay fencing-off (stopped short): " + kLocksim + " replay " + scenario + " --seed 1 --fencing off"),
            std::string::npos)
      << result.output;
  const nlohmann::json mode = nlohmann::json::parse(read_text(json))["scenarios"][0]["modes"]["fencing-off"];
  EXPECT_EQ(mode["stopped_short"], 3);
  EXPECT_GT(mode["unfinished_jobs"].get<int>(), 0);
  EXPECT_EQ(mode["stopped_short_example"]["seed"], 1);
  EXPECT_FALSE(mode["stopped_short_example"]["blocked"].empty());
  EXPECT_EQ(mode["runs_with"]["stopped_short"], 3);
  EXPECT_TRUE(mode["counts"].contains("late_writes"));
}

TEST(ReplayCommand, PrintsATraceWritesTheHistoryAndMarksViolations) {
  // The first failing seed, as `run` reports it.
  const std::string scenario = kScenarios + "/h01-gc-pause-past-lease.json";
  const std::string summary_file = scratch("h01.json");
  (void)run_locksim("run " + scenario + " --seeds 20 --json " + summary_file);
  const nlohmann::json summary = nlohmann::json::parse(read_text(summary_file));
  const std::string replay = summary["scenarios"][0]["modes"]["fencing-off"]["replay"];
  const std::string seed = std::to_string(summary["scenarios"][0]["modes"]["fencing-off"]["first_failing_seed"].get<int>());
  EXPECT_EQ(replay, kLocksim + " replay " + scenario + " --seed " + seed + " --fencing off");

  const std::string history = scratch("replay.jsonl");
  const Result result = run_locksim("replay " + scenario + " --seed " + seed + " --fencing off --history " + history);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("<<< "), std::string::npos);
  EXPECT_NE(result.output.find("  true  "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("  local  proc  "), std::string::npos) << result.output;
  // The written history passes through `check` to the same verdict.
  const Result checked = run_locksim("check " + history);
  EXPECT_EQ(checked.exit_code, 1) << checked.output;
  EXPECT_NE(checked.output.find("stale_write"), std::string::npos);
}

TEST(ListCommand, ListsEveryBuiltinScenarioWithItsDescription) {
  const Result result = run_locksim("list");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("h01-gc-pause-past-lease  "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("control-no-faults"), std::string::npos);
}

TEST(RunCommand, AScenarioFileThatFailsToLoadMakesTheSummaryNotOkAndIsListedInItAndTheClosingLine) {
  const std::string bad = kBadScenarios + "/repeated-key.json";
  const std::string summary_file = scratch("with-load-error.json");
  const Result run = run_locksim("run " + kScenarios + "/control-no-faults.json " + bad + " --seeds 2 --json " +
                                 summary_file);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("1 scenario: 1 passed, 1 scenario file not loaded (bad input)"), std::string::npos)
      << run.output;
  const nlohmann::json summary = nlohmann::json::parse(read_text(summary_file));
  EXPECT_EQ(summary["ok"], false);
  ASSERT_EQ(summary["load_errors"].size(), 1u);
  EXPECT_EQ(summary["load_errors"][0]["file"], bad);
  EXPECT_EQ(summary["load_errors"][0]["path"], "/faults/0/for");
  // merge keeps them: the merged run is no pass either.
  const std::string merged = scratch("merged-with-load-error.json");
  EXPECT_EQ(run_locksim("merge " + summary_file + " --json " + merged).exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(read_text(merged))["ok"], false);
}

TEST(MergeCommand, RefusesShardsRunWithDifferentFlagsNamingTheDifference) {
  const std::string scenario = kScenarios + "/h26-lease-shorter-than-work.json";
  const std::string shard_0 = scratch("flags-shard-0.json");
  const std::string shard_1 = scratch("flags-shard-1.json");
  EXPECT_EQ(run_locksim("run " + scenario + " --seeds 4 --shard 0/2 --fencing off --json " + shard_0).exit_code, 0);
  EXPECT_EQ(run_locksim("run " + scenario + " --seeds 4 --shard 1/2 --fencing compare --json " + shard_1).exit_code, 0);
  const Result mixed = run_locksim("merge " + shard_0 + " " + shard_1 + " --json " + scratch("flags-merged.json"));
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.output.find("differ in the flags they were run with: --fencing off"), std::string::npos)
      << mixed.output;
  EXPECT_NE(mixed.output.find("vs --fencing compare"), std::string::npos) << mixed.output;
}

TEST(MergeCommand, AddsShardSummariesAndRejectsABadOne) {
  const std::string scenario = kScenarios + "/h26-lease-shorter-than-work.json";
  const std::string shard_0 = scratch("shard-0.json");
  const std::string shard_1 = scratch("shard-1.json");
  const std::string merged = scratch("merged.json");
  EXPECT_EQ(run_locksim("run " + scenario + " --seeds 6 --shard 0/2 --json " + shard_0).exit_code, 0);
  EXPECT_EQ(run_locksim("run " + scenario + " --seeds 6 --shard 1/2 --json " + shard_1).exit_code, 0);
  EXPECT_EQ(run_locksim("merge " + shard_0 + " " + shard_1 + " --json " + merged).exit_code, 0);
  const nlohmann::json summary = nlohmann::json::parse(read_text(merged));
  EXPECT_EQ(summary["scenarios"][0]["modes"]["fencing-off"]["runs"], 6);
  const std::string bad = scratch("bad-summary.json");
  std::ofstream{bad} << R"({"scenarios": [{"name": "x"}]})";
  const Result rejected = run_locksim("merge " + bad + " --json " + merged);
  EXPECT_EQ(rejected.exit_code, 2);
  EXPECT_NE(rejected.output.find(bad + ": /scenarios/0/file: missing"), std::string::npos) << rejected.output;
}

}  // namespace
