// The scenario runner end to end: the built-in library's expectations, inert
// detection, sharding and merging, replay against run, saved plans, and
// independence from the number of threads.
#include "runner/scenario_run.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "reports/expectation_text.h"
#include "reports/junit_xml.h"
#include "reports/summary_json.h"
#include "runner/seed_run.h"
#include "scenario/fencing_modes.h"
#include "scenario/saved_plan.h"
#include "scenario/scenario_parser.h"
#include "tests/summary_without_times.h"
#include "tests/text_files.h"
#include "run_request.h"

namespace locksim::runner {
namespace {

using testing::seeds;

using test_support::read_text;

std::vector<std::string> builtin_scenario_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator{LOCKSIM_SCENARIO_DIR}) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

nlohmann::json comparable(const std::vector<ScenarioSummary>& summaries) {
  return locksim::test_support::summary_without_times(nlohmann::json::parse(reports::summary_to_json(summaries)));
}

class BuiltinScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinScenario, MeetsItsExpectationsAtReducedSeeds) {
  const scenario::Scenario scenario = scenario::load_scenario_file(GetParam());
  const ScenarioSummary summary = run_scenario(scenario, seeds(std::min<std::uint64_t>(20, scenario.seeds)));
  for (const ExpectationResult& result : summary.expectations) {
    EXPECT_TRUE(result.ok) << scenario.name << " " << scenario::fencing_mode_name(result.mode) << ": "
                           << reports::expectation_words(result);
  }
  for (const std::string& why : summary.inert) ADD_FAILURE() << scenario.name << " inert: " << why;
  EXPECT_TRUE(summary.ok);
  EXPECT_FALSE(scenario.description.empty());
  EXPECT_FALSE(scenario.expect.empty()) << "every built-in scenario states what the literature expects";
}

INSTANTIATE_TEST_SUITE_P(Library, BuiltinScenario, ::testing::ValuesIn(builtin_scenario_files()),
                         [](const ::testing::TestParamInfo<std::string>& parameter) {
                           std::string name = std::filesystem::path{parameter.param}.stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(BuiltinLibrary, HasAControlAndAtLeastFourteenHazardScenarios) {
  const std::vector<std::string> files = builtin_scenario_files();
  EXPECT_GE(files.size(), 15u);
  EXPECT_TRUE(std::any_of(files.begin(), files.end(), [](const std::string& f) { return f.find("control") != std::string::npos; }));
}

TEST(ScenarioRun, AFaultWhoseTriggerNeverHappensMakesTheScenarioInert) {
  // worker-2 does one job, so a pause after its fifth acquisition never fires.
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "never-fires", "workload": {"kind": "counter", "jobs": 1},
      "faults": [{"kind": "pause", "target": "worker-2", "when": "after-acquire", "nth": 5, "for": "20s"}],
      "expect": {"any": {"stale_write": "==0"}}})",
                                                                 "never-fires.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(5));
  ASSERT_EQ(summary.inert.size(), 1u);
  EXPECT_EQ(summary.inert[0], "fencing-off: faults[0] never fired");
  EXPECT_FALSE(summary.ok);
  EXPECT_TRUE(summary.expectations.at(0).ok);  // the expectation alone would have passed
}

TEST(ScenarioRun, AllowInertSaysANeverFiringFaultIsIntended) {
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "never-fires", "workload": {"kind": "counter", "jobs": 1}, "allow_inert": true,
      "faults": [{"kind": "pause", "target": "worker-2", "when": "after-acquire", "nth": 5, "for": "20s"}]})",
                                                                 "never-fires.json");
  EXPECT_TRUE(run_scenario(scenario, seeds(3)).ok);
}

TEST(ScenarioRun, AProbeThatIsNeverReachedMakesTheScenarioInert) {
  // The pause (1 s) is far shorter than the lease: the hazard never happens.
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "short-pause", "lock": {"lease": "30s"},
      "faults": [{"kind": "pause", "target": "worker-1", "when": "after-acquire", "for": "1s"}],
      "probes_required": ["pause_past_lease"]})",
                                                                 "short-pause.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(3));
  ASSERT_EQ(summary.inert.size(), 1u);
  EXPECT_EQ(summary.inert[0], "fencing-off: probe pause_past_lease was never reached");
}

TEST(ScenarioRun, ShardedRunsMergeIntoTheWholeRun) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json");
  const std::vector<ScenarioSummary> whole{run_scenario(scenario, seeds(12))};
  std::vector<ScenarioSummary> merged;
  for (std::uint64_t shard = 0; shard < 3; ++shard) {
    RunRequest request = seeds(12);
    request.shard_index = shard;
    request.shard_count = 3;
    // Through the JSON files, as `locksim merge` reads them.
    const std::string json = reports::summary_to_json({run_scenario(scenario, request)});
    merge_summaries(merged, reports::summary_from_json(json, "shard.json"));
  }
  EXPECT_EQ(comparable(merged), comparable(whole));
}

TEST(ScenarioRun, ResultsDoNotDependOnTheNumberOfThreads) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/random-gc-pauses.json");
  EXPECT_EQ(comparable({run_scenario(scenario, seeds(8, 1))}), comparable({run_scenario(scenario, seeds(8, 3))}));
}

TEST(ScenarioRun, ReplayingASeedGivesTheVerdictItHadInTheRun) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(10));
  const ModeSummary& off = summary.modes.at(0);
  ASSERT_TRUE(off.first_failing_seed.has_value());
  const SeedRun replayed = run_seed(scenario, *off.first_failing_seed, model::Fencing::kOff);
  EXPECT_FALSE(replayed.verdict.ok());
  // Seeds before the first failing one replay clean.
  for (std::uint64_t seed = 1; seed < *off.first_failing_seed; ++seed) {
    EXPECT_TRUE(run_seed(scenario, seed, model::Fencing::kOff).verdict.ok()) << "seed " << seed;
  }
  EXPECT_EQ(off.replay, "locksim replay " + scenario.file + " --seed " + std::to_string(*off.first_failing_seed) +
                            " --fencing off");
}

TEST(ScenarioRun, AFailoverLongAfterTheCrashedPrimarysLeaseRanOutGrantsNothingTwice) {
  // Issue 24: redis-0 grants a 10 s lease and crashes at 0.5 s; Sentinel
  // promotes redis-1 at about 31.5 s. Nobody promised the old lease past
  // 10 s, so the new primary's grant is no double grant (before: 40 in 20 seeds).
  const scenario::Scenario scenario =
      scenario::load_scenario_file(std::string{LOCKSIM_TEST_DATA_DIR} + "/scenarios/crash-then-late-failover.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(20));
  EXPECT_TRUE(summary.ok);
  ASSERT_EQ(summary.modes.size(), 2u);
  for (const ModeSummary& mode : summary.modes) {
    EXPECT_EQ(mode.runs, 20);
    EXPECT_EQ(mode.runs_with_violation, 0) << scenario::fencing_mode_name(mode.mode);
    for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
      EXPECT_EQ(mode.total(kind), 0) << checker::violation_kind_name(kind);
    }
    EXPECT_EQ(mode.stopped_short, 0);
    EXPECT_EQ(mode.unfinished_jobs, 0);
  }
}

TEST(ScenarioRun, BothFencingModesRunTheSamePlan) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/random-gc-pauses.json");
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<std::string> faults[2];
    for (const model::Fencing fencing : {model::Fencing::kOff, model::Fencing::kOn}) {
      (void)run_seed(scenario, seed, fencing, [&](std::string_view line, const sim::Simulation&) {
        const nlohmann::json event = nlohmann::json::parse(line);
        if (event["ev"] == "fault.begin") {
          faults[fencing == model::Fencing::kOn ? 1 : 0].push_back(event["t"].dump() + event["target"].dump() + std::to_string(event.value("for_ns", std::int64_t{0})));
        }
      });
    }
    EXPECT_EQ(faults[0], faults[1]) << "seed " << seed;
  }
}

TEST(ScenarioRun, ASavedPlanReplaysToTheSameVerdict) {
  const std::string path = std::string{LOCKSIM_SCENARIO_DIR} + "/random-gc-pauses.json";
  const scenario::Scenario scenario = scenario::load_scenario_file(path);
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const scenario::Plan plan = scenario::make_plan(scenario, seed);
    const std::string saved = scenario::saved_plan_json(read_text(path), scenario, plan);
    const scenario::Scenario explicit_plan = scenario::parse_scenario(saved, "saved.json");
    EXPECT_FALSE(explicit_plan.swarm);
    for (const scenario::FaultSpec& fault : explicit_plan.faults) {
      EXPECT_FALSE(std::holds_alternative<scenario::AtRate>(fault.trigger)) << "a saved plan draws no fault times";
    }
    const SeedRun original = run_seed(scenario, seed, model::Fencing::kOff);
    const SeedRun again = run_seed(explicit_plan, seed, model::Fencing::kOff);
    for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
      EXPECT_EQ(original.verdict.violation_count(kind), again.verdict.violation_count(kind))
          << "seed " << seed << " " << checker::violation_kind_name(kind);
    }
    EXPECT_EQ(original.verdict.counts.accepted_writes, again.verdict.counts.accepted_writes) << "seed " << seed;
  }
}

TEST(ScenarioRun, RecheckFindsNoDifferenceInADeterministicRun) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/h26-lease-shorter-than-work.json");
  RunRequest request = seeds(10);
  request.recheck_fraction = 0.3;
  const ScenarioSummary summary = run_scenario(scenario, request);
  EXPECT_EQ(summary.rechecked, 3u);  // 3 seeds (each in both modes)
  EXPECT_TRUE(summary.recheck_failed.empty());
}

// Two threads share the seeds: the time waited is less than the CPU time
// the runs took together. wall_s is the first; summing the runs' times (as
// it once was) gives the second, about twice the time the call took.
TEST(ScenarioRun, WallTimeIsTheTimeWaitedAndCpuTimeIsBesideIt) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/random-gc-pauses.json");
  const auto started = std::chrono::steady_clock::now();
  const ScenarioSummary summary = run_scenario(scenario, seeds(40, 2));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_GT(summary.wall_seconds, 0.0);
  EXPECT_LE(summary.wall_seconds, waited);
  EXPECT_GT(summary.cpu_seconds(), 0.0);
  const nlohmann::json json = nlohmann::json::parse(reports::summary_to_json({summary}));
  EXPECT_DOUBLE_EQ(json["scenarios"][0]["stats"]["wall_s"].get<double>(), summary.wall_seconds);
  double modes_cpu = 0;
  for (const auto& [name, mode] : json["scenarios"][0]["modes"].items()) modes_cpu += mode["stats"]["cpu_s"].get<double>();
  EXPECT_DOUBLE_EQ(json["scenarios"][0]["stats"]["cpu_s"].get<double>(), modes_cpu);
}

// JUnit times are wall time: the suite's is the scenario's, and its cases
// (the modes, run interleaved) share it by CPU time, adding up to it.
TEST(JunitXml, TimesAreTheScenariosWallTimeSharedByTheModes) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/random-gc-pauses.json");
  ScenarioSummary summary = run_scenario(scenario, seeds(4));
  summary.wall_seconds = 3.0;
  summary.modes.at(0).cpu_seconds = 4.0;
  summary.modes.at(1).cpu_seconds = 2.0;
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(reports::summary_to_junit({summary, summary}).c_str()));
  const pugi::xml_node suite = document.child("testsuites").child("testsuite");
  EXPECT_DOUBLE_EQ(document.child("testsuites").attribute("time").as_double(), 6.0);
  EXPECT_DOUBLE_EQ(suite.attribute("time").as_double(), 3.0);
  EXPECT_DOUBLE_EQ(suite.find_child_by_attribute("testcase", "name", "fencing-off").attribute("time").as_double(), 2.0);
  EXPECT_DOUBLE_EQ(suite.find_child_by_attribute("testcase", "name", "fencing-on").attribute("time").as_double(), 1.0);
}

TEST(JunitXml, IsWellFormedAndNamesTheReplayCommandOfAFailure) {
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "expects-too-little", "lock": {"lease": "1s"}, "storage": {"fencing": "compare"},
      "workers": {"work": {"dist": "uniform", "min": "500ms", "max": "2s"}},
      "expect": {"fencing-off": {"stale_write": "==0"}}})",
                                                                 "tests/expects-too-little.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(5));
  ASSERT_FALSE(summary.ok);
  pugi::xml_document document;
  const std::string xml = reports::summary_to_junit({summary});
  const pugi::xml_parse_result parsed = document.load_string(xml.c_str());
  ASSERT_TRUE(parsed) << parsed.description();
  const pugi::xml_node suite = document.child("testsuites").child("testsuite");
  EXPECT_STREQ(suite.attribute("name").value(), "expects-too-little");
  EXPECT_EQ(suite.attribute("tests").as_int(), 2);
  EXPECT_EQ(suite.attribute("failures").as_int(), 1);
  const pugi::xml_node failure = suite.find_child_by_attribute("testcase", "name", "fencing-off").child("failure");
  ASSERT_TRUE(failure);
  EXPECT_NE(std::string{failure.text().get()}.find("replay: locksim replay tests/expects-too-little.json --seed"),
            std::string::npos);
  EXPECT_FALSE(suite.find_child_by_attribute("testcase", "name", "fencing-on").child("failure"));
}

}  // namespace
}  // namespace locksim::runner
