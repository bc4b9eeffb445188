// `locksim explore` as a user runs it: what it prints, the files it writes,
// that `run` and `replay` accept the minimal plan, and its exit codes.

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "locksim_process.h"

namespace locksim::cli_test {
namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream{path, std::ios::binary} << text; }

TEST(ExploreCommand, ShowsThePausePastLeaseAsAMinimalReplayablePlan) {
  const std::string minimal = scratch("h01-minimal.json");
  const std::string report = scratch("h01-explore.json");
  const Result explored = run_locksim("explore h01-gc-pause-past-lease --seed 1 --out " + minimal + " --json " + report);
  ASSERT_EQ(explored.exit_code, 0) << explored.output;
  EXPECT_NE(explored.output.find("found stale_write"), std::string::npos) << explored.output;
  EXPECT_NE(explored.output.find("worker-1 freezes for"), std::string::npos) << explored.output;
  EXPECT_NE(explored.output.find("critical event: without the pause of worker-1 the run shows no stale_write; it fails "
                                 "from a pause of"),
            std::string::npos)
      << explored.output;

  const nlohmann::json json = nlohmann::json::parse(read_text(report));
  EXPECT_TRUE(json["found"].get<bool>());
  EXPECT_EQ(json["counterexample"]["kind"], "stale_write");
  EXPECT_EQ(json["counterexample"]["critical_events"].size(), 1u);
  // Near the 10 s lease: a little less when worker-1's read and work after waking carry it past the lease.
  EXPECT_NEAR(json["counterexample"]["critical_events"][0]["threshold_ns"].get<double>(), 10e9, 500e6);

  const Result run = run_locksim("run " + minimal);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(table_of(run.output).find("reproduced"), std::string::npos) << run.output;
  const Result replay = run_locksim("replay " + minimal + " --around stale_write");
  EXPECT_EQ(replay.exit_code, 1) << replay.output;
  EXPECT_NE(replay.output.find("stale_write"), std::string::npos) << replay.output;
}

TEST(ExploreCommand, AStuckLocksMinimalPlanSaysItsRunStopsShortSoRunSaysReproduced) {
  const std::string minimal = scratch("h10-minimal.json");
  const Result explored = run_locksim("explore h10-no-lease-crash --seed 1 --out " + minimal);
  ASSERT_EQ(explored.exit_code, 0) << explored.output;
  EXPECT_NE(explored.output.find("found stuck_lock"), std::string::npos) << explored.output;
  EXPECT_EQ(nlohmann::json::parse(read_text(minimal))["expect"]["fencing-off"]["stopped_short"], ">0");
  const Result run = run_locksim("run " + minimal);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(table_of(run.output).find("reproduced"), std::string::npos) << run.output;
}

TEST(ExploreCommand, TheDefaultOutputIsInTheWorkingDirectoryWhateverTheScenarioIsNamed) {
  nlohmann::json scenario = nlohmann::json::parse(read_text(std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json"));
  scenario["name"] = "../team/h01 copy";
  const std::filesystem::path directory = scratch("explore-default-out");
  std::filesystem::create_directories(directory);
  write_file((directory / "named.json").string(), scenario.dump());
  const Result explored =
      run_shell("cd " + directory.string() + " && " + std::string{LOCKSIM_BINARY} + " explore named.json --seed 1");
  ASSERT_EQ(explored.exit_code, 0) << explored.output;
  EXPECT_TRUE(std::filesystem::exists(directory / "___team_h01_copy-minimal.json")) << explored.output;
  EXPECT_FALSE(std::filesystem::exists(directory.parent_path() / "team")) << "nothing outside the working directory";
}

TEST(ExploreCommand, TheDefaultOutputNeverReplacesAFileAndBadPathsFailBeforeTheSearch) {
  const std::filesystem::path directory = scratch("explore-numbered-out");
  std::filesystem::create_directories(directory);
  const std::string explore = "cd " + directory.string() + " && " + std::string{LOCKSIM_BINARY} +
                              " explore h01-gc-pause-past-lease --seed 1";
  ASSERT_EQ(run_shell(explore).exit_code, 0);
  const Result again = run_shell(explore);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("minimal plan written to h01-gc-pause-past-lease-minimal-2.json"), std::string::npos)
      << again.output;
  EXPECT_TRUE(std::filesystem::exists(directory / "h01-gc-pause-past-lease-minimal.json"));
  EXPECT_TRUE(std::filesystem::exists(directory / "h01-gc-pause-past-lease-minimal-2.json"));
  const Result bad = run_shell(explore + " --json " + (directory / "no-such-dir" / "x.json").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.output.find("explore h01"), std::string::npos) << "refused before the search: " << bad.output;
  EXPECT_NE(bad.output.find("--json "), std::string::npos) << bad.output;
}

TEST(ExploreCommand, ASafeScenarioPassesItsTests) {
  const Result explored = run_locksim("explore h22-fenced-reads --tests 20 --seed 3 --out " + scratch("unused.json"));
  EXPECT_EQ(explored.exit_code, 0) << explored.output;
  EXPECT_NE(explored.output.find("459 seeds and 20 tests passed: no run showed stale_write, lost_update"), std::string::npos)
      << explored.output;
  EXPECT_FALSE(std::filesystem::exists(scratch("unused.json")));
}

TEST(ExploreCommand, ABrokenSafetyRuleIsExitOneAndItsMinimalPlanFailsTheSameWay) {
  const std::string scenario = scratch("claims-safety.json");
  write_file(scenario, R"({
    "name": "claims-safety", "duration": "1m",
    "workers": {"count": 3}, "workload": {"jobs": 3},
    "faults": [{"kind": "pause", "target": "workers", "when": "after-acquire", "for": {"dist": "uniform", "min": "1s", "max": "30s"}}],
    "expect": {"fencing-off": {"stale_write": "==0"}}
  })");
  const std::string minimal = scratch("claims-safety-minimal.json");
  const Result explored = run_locksim("explore " + scenario + " --seed 2 --out " + minimal);
  ASSERT_EQ(explored.exit_code, 1) << explored.output;
  EXPECT_NE(explored.output.find("found stale_write"), std::string::npos) << explored.output;
  EXPECT_EQ(nlohmann::json::parse(read_text(minimal))["expect"]["fencing-off"]["stale_write"], "==0");
  const Result run = run_locksim("run " + minimal);
  EXPECT_EQ(run.exit_code, 1) << run.output;
}

TEST(ExploreCommand, AClaimedHazardNotShownIsExitOne) {
  const std::string scenario = scratch("claims-hazard.json");
  write_file(scenario, R"({"name": "claims-hazard", "duration": "30s", "workload": {"jobs": 2},
                          "expect": {"fencing-off": {"stale_write": ">0"}}})");
  const Result explored = run_locksim("explore " + scenario + " --tests 5 --seed 1");
  EXPECT_EQ(explored.exit_code, 1) << explored.output;
  EXPECT_NE(explored.output.find("the hazard the file claims was not shown"), std::string::npos) << explored.output;
}

TEST(ExploreCommand, BadFlagsAreExitTwoWithWhatWasExpected) {
  const Result target = run_locksim("explore h01-gc-pause-past-lease --target stale-write");
  EXPECT_EQ(target.exit_code, 2) << target.output;
  EXPECT_NE(target.output.find("--target stale-write: not a violation kind; expected one of double_grant"),
            std::string::npos)
      << target.output;
  EXPECT_EQ(run_locksim("explore h01-gc-pause-past-lease --tests -1").exit_code, 2);
  EXPECT_EQ(run_locksim("explore h01-gc-pause-past-lease --from-seeds 100001").exit_code, 2);
  EXPECT_EQ(run_locksim("explore h01-gc-pause-past-lease --fencing compare").exit_code, 2);
  const Result unknown = run_locksim("explore h01-gc-pause-past-leas");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
}

}  // namespace
}  // namespace locksim::cli_test
