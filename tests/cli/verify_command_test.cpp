// `locksim verify` as a user runs it: the statement, the counterexample and
// its file, which `replay` reruns exactly and `run` refuses, the run limit,
// and a counterexample file that does not fit the model.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "locksim_process.h"

namespace locksim::cli_test {
namespace {

TEST(VerifyCommand, GivesTheCheckThenActRaceAsAOneDeviationCounterexampleThatReplayReruns) {
  const std::string found = scratch("h03-counterexample.json");
  const std::string report = scratch("h03-verify.json");
  const Result verified =
      run_locksim("verify h03-monotonic-lease-check --deviations 1 --quiet --out " + found + " --json " + report);
  EXPECT_EQ(verified.exit_code, 1) << "the file says no stale write: a counterexample breaks it\n" << verified.output;
  EXPECT_NE(verified.output.find("counterexample with 1 deviation"), std::string::npos) << verified.output;
  EXPECT_NE(verified.output.find("fault trigger of faults[0], epoch 0: at worker-1's write.invoke #1"), std::string::npos)
      << verified.output;
  EXPECT_NE(verified.output.find("a stale write"), std::string::npos) << verified.output;
  EXPECT_NE(verified.output.find(std::string{LOCKSIM_BINARY} + " replay " + found + " --fencing off"), std::string::npos)
      << "the replay command starts as this one was typed\n" << verified.output;

  const nlohmann::json json = nlohmann::json::parse(read_text(report));
  EXPECT_TRUE(json["statement"].is_null());
  EXPECT_EQ(json["counterexample"]["deviations"].size(), 1u);
  EXPECT_EQ(json["counterexample"]["file"], found);
  EXPECT_EQ(json["deviations_checked"], 0);

  const nlohmann::json file = nlohmann::json::parse(read_text(found));
  EXPECT_EQ(file["choices"]["deviations"][0]["site"], "fault trigger of faults[0], epoch 0");
  const Result replayed = run_locksim("replay " + found + " --fencing off");
  EXPECT_EQ(replayed.exit_code, 1) << replayed.output;
  EXPECT_NE(replayed.output.find("stale_write"), std::string::npos) << replayed.output;

  const Result run = run_locksim("run " + found);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("/choices: a verify counterexample is one run"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(std::string{LOCKSIM_BINARY} + " replay " + found), std::string::npos) << run.output;
}

TEST(VerifyCommand, StatesWhatNoRunWithinTheBoundsShows) {
  const std::string report = scratch("control-verify.json");
  const Result verified = run_locksim("verify control-no-faults --deviations 1 --jobs 2 --quiet --json " + report);
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_NE(verified.output.find("no run with at most 1 deviation shows"), std::string::npos) << verified.output;
  const nlohmann::json json = nlohmann::json::parse(read_text(report));
  EXPECT_TRUE(json["counterexample"].is_null());
  EXPECT_EQ(json["deviations_checked"], 1);
  EXPECT_GT(json["runs"].get<int>(), 100);
  EXPECT_TRUE(json["runs_showing"].empty());
  EXPECT_EQ(json["bounds"]["deviations"], 1);
}

TEST(VerifyCommand, RefusesABoundAboveTheLimitUnlessToldYes) {
  const Result refused = run_locksim("verify control-no-faults --deviations 2 --limit 1000 --quiet");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("is more than --limit 1000: lower --deviations or --anchors, or pass --yes"),
            std::string::npos)
      << refused.output;
}

TEST(VerifyCommand, ReplayRefusesAChoiceThatTheModelDoesNotMeetThere) {
  nlohmann::json scenario = nlohmann::json::parse(read_text(std::string{LOCKSIM_SCENARIO_DIR} + "/control-no-faults.json"));
  scenario["choices"] = {{"deviations", {{{"at", 0}, {"index", 1}, {"site", "workers.work of worker-9, epoch 3"}}}}};
  const std::string path = scratch("stale-choices.json");
  std::ofstream{path, std::ios::binary} << scenario.dump();
  const Result replayed = run_locksim("replay " + path);
  EXPECT_EQ(replayed.exit_code, 2) << replayed.output;
  EXPECT_NE(replayed.output.find("/choices/deviations/0: the run meets"), std::string::npos) << replayed.output;

  scenario["choices"]["deviations"][0]["index"] = 0;
  std::ofstream{path, std::ios::binary} << scenario.dump();
  const Result malformed = run_locksim("replay " + path);
  EXPECT_EQ(malformed.exit_code, 2) << malformed.output;
  EXPECT_NE(malformed.output.find("/choices/deviations/0/index: expected a whole number from 1"), std::string::npos)
      << malformed.output;

  // A position that would make a script of a hundred million choices is refused before anything runs.
  scenario["choices"]["deviations"][0]["index"] = 1;
  scenario["choices"]["deviations"][0]["at"] = 100'000'000;
  std::ofstream{path, std::ios::binary} << scenario.dump();
  const Result huge = run_locksim("replay " + path);
  EXPECT_EQ(huge.exit_code, 2) << huge.output;
  EXPECT_NE(huge.output.find("/choices/deviations/0/at: expected a whole number from 0 to 1000000"), std::string::npos)
      << huge.output;
}

}  // namespace
}  // namespace locksim::cli_test
