// `run` and `replay` as CI and a first-time user meet them: saved plans that
// replay their own seed, "not judged" and "reproduced" instead of a blanket
// "passed", output paths and bad files reported early and in the JUnit, and
// replay commands and built-in scenario names that work as printed.
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "locksim_process.h"

namespace {

using locksim::cli_test::read_text;
using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;
using locksim::cli_test::run_shell;
using locksim::cli_test::table_of;
using locksim::cli_test::scratch;

const std::string kScenarios = LOCKSIM_SCENARIO_DIR;
const std::string kLocksim = LOCKSIM_BINARY;

// "history hash 0123abcd..." from replay's last lines.
std::string history_hash(const std::string& replay_output) {
  std::smatch match;
  if (!std::regex_search(replay_output, match, std::regex{"history hash ([0-9a-f]+)"})) return "";
  return match[1];
}

TEST(SavedPlan, RunsTheSeedItWasSavedFromWithTheSameVerdictAndHistoryHash) {
  const std::string plan = scratch("h01-seed-7-plan.json");
  const Result original =
      run_locksim("replay " + kScenarios + "/h01-gc-pause-past-lease.json --seed 7 --fencing off --save-plan " + plan);
  ASSERT_FALSE(history_hash(original.output).empty()) << original.output;
  EXPECT_EQ(nlohmann::json::parse(read_text(plan))["first_seed"], 7);

  const Result replayed = run_locksim("replay " + plan + " --fencing off");
  EXPECT_EQ(replayed.exit_code, original.exit_code) << replayed.output;
  EXPECT_EQ(history_hash(replayed.output), history_hash(original.output));

  const std::string summary_file = scratch("h01-seed-7-plan-summary.json");
  const Result run = run_locksim("run " + plan + " --fencing off --json " + summary_file);
  const nlohmann::json summary = nlohmann::json::parse(read_text(summary_file))["scenarios"][0];
  EXPECT_EQ(summary["seeds"]["first"], 7) << run.output;
  EXPECT_EQ(summary["modes"]["fencing-off"]["runs"], 1);
  EXPECT_EQ(summary["modes"]["fencing-off"]["runs_with_violation"].get<int>(), original.exit_code == 1 ? 1 : 0);
}

TEST(SavedPlan, AnExplicitSeedStillWins) {
  const std::string plan = scratch("h01-seed-7-plan-again.json");
  (void)run_locksim("replay " + kScenarios + "/h01-gc-pause-past-lease.json --seed 7 --fencing off --save-plan " + plan);
  const std::string summary_file = scratch("h01-seed-7-plan-seed-3.json");
  (void)run_locksim("run " + plan + " --seed 3 --fencing off --json " + summary_file);
  EXPECT_EQ(nlohmann::json::parse(read_text(summary_file))["scenarios"][0]["seeds"]["first"], 3);
  const Result seven = run_locksim("replay " + plan + " --fencing off");
  const Result three = run_locksim("replay " + plan + " --seed 3 --fencing off");
  EXPECT_NE(history_hash(three.output), history_hash(seven.output));
  EXPECT_FALSE(history_hash(three.output).empty()) << three.output;
}

TEST(NotJudged, AModeNoExpectationAppliesToIsNotJudgedInTheTableAndJsonWithItsViolationsAndReplay) {
  const std::string summary_file = scratch("h22-off.json");
  const Result result =
      run_locksim("run " + kScenarios + "/h22-fencing-window.json --fencing off --seeds 10 --json " + summary_file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("NOT JUDGED h22-fencing-window"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("fencing-off: no expectation in the file applies to this mode"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("1 scenario: 1 not judged"), std::string::npos) << result.output;
  EXPECT_EQ(table_of(result.output).find("passed"), std::string::npos) << result.output;
  const nlohmann::json summary = nlohmann::json::parse(read_text(summary_file))["scenarios"][0];
  EXPECT_FALSE(summary["judged"].get<bool>());
  EXPECT_FALSE(summary["modes"]["fencing-off"]["judged"].get<bool>());
  // Its violations are listed anyway (h22's hazard shows without fencing in
  // the seeds where worker-1 holds first: 4 of the first 10).
  EXPECT_NE(result.output.find("fencing-off: 4 of 10 runs had violations: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("stale_write 4 in 4 incidents"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("replay fencing-off: " + kLocksim + " replay "), std::string::npos) << result.output;
}

TEST(NotJudged, AScenarioWithoutExpectationsIsNotJudgedAndRequireExpectationsMakesItExitOne) {
  const std::string scenario = scratch("no-expect.json");
  std::ofstream{scenario} << R"({"name": "no-expect", "workers": {"count": 2, "work": "1s"}})";
  const Result plain = run_locksim("run " + scenario + " --seeds 3");
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("1 scenario: 1 not judged"), std::string::npos) << plain.output;

  const std::string junit = scratch("no-expect.xml");
  const Result required = run_locksim("run " + scenario + " --seeds 3 --require-expectations --junit " + junit);
  EXPECT_EQ(required.exit_code, 1) << required.output;
  EXPECT_NE(required.output.find("--require-expectations"), std::string::npos) << required.output;
  EXPECT_NE(read_text(junit).find("<failure message=\"not judged"), std::string::npos) << read_text(junit);

  const std::string junit_skipped = scratch("no-expect-skipped.xml");
  (void)run_locksim("run " + scenario + " --seeds 3 --junit " + junit_skipped);
  EXPECT_NE(read_text(junit_skipped).find("<skipped message=\"not judged"), std::string::npos);
}

// A CI log merges stdout and stderr (2>&1, a pipe): a load error comes
// before the table, the errors about the run after it, each a whole line.
// (Piped, as here, stdout is buffered: unflushed, the table once came after them all.)
TEST(MergedLog, ErrorsAreWholeLinesBeforeOrAfterTheTableNeverInsideIt) {
  const std::string scenario = scratch("merged-log-no-expect.json");
  std::ofstream{scenario} << R"({"name": "no-expect", "workers": {"count": 2, "work": "1s"}})";
  const std::string bad = scratch("merged-log-bad.json");
  std::ofstream{bad} << R"({"name": "bad", "lock": {"lease": 5)";
  const Result result = run_locksim("run " + scenario + " " + bad + " --seeds 3 --require-expectations");
  const std::string& log = result.output;
  const std::size_t table = log.find("scenario   mode");
  const std::size_t closing = log.find("1 scenario: 1 not judged");
  ASSERT_NE(table, std::string::npos) << log;
  ASSERT_NE(closing, std::string::npos) << log;
  const std::size_t load_error = log.find("merged-log-bad.json:1:");
  const std::size_t not_judged = log.find("locksim: --require-expectations: a scenario was not judged");
  const std::size_t not_loaded = log.find("locksim: 1 scenario file could not be loaded");
  EXPECT_LT(load_error, table) << log;
  EXPECT_GT(not_judged, closing) << log;
  EXPECT_GT(not_loaded, closing) << log;
  for (const std::size_t at : {not_judged, not_loaded}) {
    ASSERT_NE(at, std::string::npos) << log;
    EXPECT_EQ(log[at - 1], '\n') << "not a whole line: " << log;
  }
}

TEST(NotJudged, RequireExpectationsKeepsAJudgedSuiteAtExitZero) {
  const Result result = run_locksim("run " + kScenarios + "/control-no-faults.json --seeds 3 --require-expectations");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("1 scenario: 1 passed"), std::string::npos) << result.output;
}

TEST(Reproduced, AHeldHazardExpectationReadsReproducedNotPassed) {
  const std::string summary_file = scratch("h01-reproduced.json");
  const Result result = run_locksim("run " + kScenarios + "/h01-gc-pause-past-lease.json " + kScenarios +
                                    "/control-no-faults.json --seeds 20 --json " + summary_file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("2 scenarios: 1 passed, 1 reproduced their hazard"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("reproduced"), result.output.rfind("reproduced")) << "the table row says it too";
  const nlohmann::json summary = nlohmann::json::parse(read_text(summary_file));
  EXPECT_TRUE(summary["scenarios"][0]["reproduced"].get<bool>());
  EXPECT_TRUE(summary["scenarios"][0]["judged"].get<bool>());
  EXPECT_FALSE(summary["scenarios"][1]["reproduced"].get<bool>());
}

TEST(OutputPaths, AnUnwritableJsonPathFailsBeforeRunningWithTheReason) {
  // 100,000 seeds of every scenario would take minutes: nothing in the
  // output of a run means it failed before running (no timing asserted).
  const Result result = run_locksim("run " + kScenarios + " --seeds 100000 --json /nonexistent/dir/summary.json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--json /nonexistent/dir/summary.json: cannot write the file: No such file or directory"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("scenario"), std::string::npos) << "nothing ran:\n" << result.output;
}

TEST(OutputPaths, AJunitPathThatIsADirectoryFailsBeforeRunning) {
  const std::string directory = scratch("a-directory");
  std::filesystem::create_directories(directory);
  const Result result = run_locksim("run " + kScenarios + " --seeds 100000 --junit " + directory);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--junit " + directory + ": cannot write the file: Is a directory"), std::string::npos)
      << result.output;
}

TEST(BadFileInASuite, TheOthersStillRunAndTheJunitHasAnErrorTestcaseAndTheExitIsTwo) {
  const std::string suite = scratch("suite-with-a-bad-file");
  std::filesystem::create_directories(suite);
  std::filesystem::copy_file(kScenarios + "/control-no-faults.json", suite + "/a-good.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream{suite + "/b-bad.json"} << R"({"name": "b-bad", "workers": {"count": "two"}})";
  const std::string junit = scratch("suite-with-a-bad-file.xml");
  const Result result = run_locksim("run " + suite + " --seeds 2 --junit " + junit);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(suite + "/b-bad.json: /workers/count: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("1 scenario: 1 passed"), std::string::npos) << result.output;
  const std::string xml = read_text(junit);
  EXPECT_NE(xml.find("errors=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"" + suite + "/b-bad.json\" name=\"load\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error message=\"" + suite + "/b-bad.json: /workers/count: "), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"control-no-faults\""), std::string::npos) << xml;
}

TEST(ReplayCommands, StartWithThePathLocksimWasInvokedBy) {
  const std::string directory = scratch("invoked");
  std::filesystem::create_directories(directory);
  std::filesystem::remove(directory + "/my-locksim");
  std::filesystem::create_symlink(kLocksim, directory + "/my-locksim");
  // Not judged, so its replay command is printed although nothing failed.
  const Result result = run_shell("cd " + directory + " && ./my-locksim run " + kScenarios +
                                  "/h22-fencing-window.json --seeds 10 --fencing off");
  EXPECT_NE(result.output.find("replay fencing-off: ./my-locksim replay "), std::string::npos) << result.output;
}

TEST(BuiltinNames, RunAndReplayAcceptABuiltinScenarioName) {
  const Result run = run_locksim("run h01-gc-pause-past-lease --seeds 3");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("h01-gc-pause-past-lease"), std::string::npos) << run.output;
  const Result replay = run_locksim("replay h01-gc-pause-past-lease --seed 2 --fencing off");
  EXPECT_NE(replay.exit_code, 2) << replay.output;
  EXPECT_FALSE(history_hash(replay.output).empty()) << replay.output;
  const Result same = run_locksim("replay " + kScenarios + "/h01-gc-pause-past-lease.json --seed 2 --fencing off");
  EXPECT_EQ(history_hash(replay.output), history_hash(same.output));
}

TEST(BuiltinNames, AnUnknownNameIsExitTwoWithTheNearestName) {
  const Result run = run_locksim("run h01-gc-pause-past-lase --seeds 1");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("did you mean h01-gc-pause-past-lease?"), std::string::npos) << run.output;
  const Result replay = run_locksim("replay no-such-scenario-at-all --seed 1");
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_NE(replay.output.find("locksim list"), std::string::npos) << replay.output;
}

TEST(BuiltinNames, AnExistingPathWinsOverABuiltinName) {
  const std::string directory = scratch("shadowing");
  std::filesystem::create_directories(directory);
  std::ofstream{directory + "/h01-gc-pause-past-lease"}
      << R"({"name": "local-copy", "workers": {"count": 2, "work": "1s"}, "expect": {"any": {"stale_write": "==0"}}})";
  const Result result = run_shell("cd " + directory + " && " + kLocksim + " run h01-gc-pause-past-lease --seeds 2");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("local-copy"), std::string::npos) << result.output;
}

}  // namespace
