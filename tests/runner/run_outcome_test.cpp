// The runner's run outcomes (stopped_short, unfinished_jobs) and
// share-of-runs expectations, judged in a run and again after a merge.
#include <sstream>

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/expectation_text.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_parser.h"
#include "run_request.h"

namespace locksim::runner {
namespace {

using testing::seeds;

const ExpectationResult& expectation_on(const ScenarioSummary& summary, scenario::Measure measure) {
  const auto found = std::find_if(summary.expectations.begin(), summary.expectations.end(),
                                  [&](const ExpectationResult& result) { return result.measure == measure; });
  EXPECT_NE(found, summary.expectations.end());
  return *found;
}

// Twenty jobs of at least one second each cannot fit in five seconds.
constexpr const char* kTooShort = R"({
    "name": "too-short", "duration": "5s",
    "workers": {"count": 2, "work": "1s"}, "workload": {"kind": "counter", "jobs": 10})";

TEST(RunOutcomes, ARunThatHitsItsTimeLimitWithJobsLeftStopsShortAndFailsWithoutAnExpectation) {
  const scenario::Scenario scenario = scenario::parse_scenario(std::string{kTooShort} + "}", "too-short.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(4));
  const ModeSummary& mode = summary.modes.at(0);
  EXPECT_EQ(mode.stopped_short, 4);
  EXPECT_GT(mode.unfinished_jobs, 4 * 10);  // at most ~5 of 20 jobs fit into one run
  EXPECT_EQ(mode.runs_with.at(scenario::RunOutcomeKind::kStoppedShort), 4);
  ASSERT_TRUE(mode.stopped_short_example.has_value());
  EXPECT_EQ(mode.stopped_short_example->seed, 1u);
  EXPECT_NE(mode.stopped_short_example->why.find("time limit 5s reached with"), std::string::npos)
      << mode.stopped_short_example->why;
  EXPECT_FALSE(mode.stopped_short_example->blocked.empty());
  EXPECT_EQ(mode.stopped_short_example->replay, "locksim replay too-short.json --seed 1 --fencing off");

  EXPECT_FALSE(summary.ok);
  const ExpectationResult& implicit = expectation_on(summary, scenario::RunOutcomeKind::kStoppedShort);
  EXPECT_FALSE(implicit.stated);
  EXPECT_FALSE(implicit.ok);
  EXPECT_EQ(reports::expectation_words(implicit), "expected stopped_short ==0, got 4");
}

TEST(RunOutcomes, StatingThatRunsStopShortMakesItExpected) {
  const scenario::Scenario scenario = scenario::parse_scenario(
      std::string{kTooShort} + R"(, "expect": {"any": {"stopped_short": "==100%", "unfinished_jobs": ">0"}}})",
      "too-short.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(3));
  EXPECT_TRUE(summary.ok);
  EXPECT_EQ(summary.expectations.size(), 2u) << "no implicit stopped_short ==0 next to a stated one";
  EXPECT_EQ(reports::expectation_words(expectation_on(summary, scenario::RunOutcomeKind::kStoppedShort)),
            "expected stopped_short ==100% of runs, got 3 of 3 runs (100%)");
}

TEST(RunOutcomes, ExpectingALivenessHazardWaivesTheImpliedStoppedShort) {
  // The runs stop short because their jobs cannot all be done: a file that
  // expects unfinished jobs (or a stuck lock) expects that too.
  for (const char* expect : {R"({"any": {"unfinished_jobs": ">0"}})", R"({"fencing-off": {"unfinished_jobs": ">=1"}})"}) {
    const scenario::Scenario scenario = scenario::parse_scenario(
        std::string{kTooShort} + R"(, "expect": )" + expect + "}", "too-short.json");
    const ScenarioSummary summary = run_scenario(scenario, seeds(3));
    EXPECT_TRUE(summary.ok) << expect;
    EXPECT_EQ(summary.expectations.size(), 1u) << "no implied stopped_short ==0: " << expect;
  }
  // Expecting none keeps it: `unfinished_jobs ==0` says nothing about a liveness hazard.
  const scenario::Scenario none = scenario::parse_scenario(
      std::string{kTooShort} + R"(, "expect": {"any": {"unfinished_jobs": "<1000"}}})", "too-short.json");
  const ScenarioSummary kept = run_scenario(none, seeds(3));
  EXPECT_EQ(kept.expectations.size(), 2u);
  EXPECT_FALSE(kept.ok);
}

TEST(RunOutcomes, AClientThatGaveUpLeavesUnfinishedJobsWithoutStoppingShortAndAStatementPasses) {
  // worker-1 crashes for good: its jobs are never done, the run ends when
  // nothing is left to run (not at its time limit).
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "gave-up", "workload": {"kind": "counter", "jobs": 3},
      "faults": [{"kind": "crash", "target": "worker-1", "at": "100ms"}],
      "expect": {"any": {"unfinished_jobs": ">0"}}})",
                                                                 "gave-up.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(3));
  const ModeSummary& mode = summary.modes.at(0);
  EXPECT_EQ(mode.stopped_short, 0);
  EXPECT_EQ(mode.unfinished_jobs, 3 * 3);  // worker-1 never finished its first job in any run
  EXPECT_FALSE(mode.stopped_short_example.has_value());
  EXPECT_TRUE(summary.ok);
}

TEST(RunOutcomes, BillingCountsTheCustomersNeverCharged) {
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "billing-cut-short", "duration": "4s", "workers": {"count": 2, "work": "1s"},
      "workload": {"kind": "billing", "customers": 50},
      "expect": {"any": {"stopped_short": ">0"}}})",
                                                                 "billing.json");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const SeedRun run = run_seed(scenario, seed, model::Fencing::kOff);
    ASSERT_TRUE(run.verdict.ok()) << "no faults: every charge is a distinct customer";
    EXPECT_GT(run.verdict.counts.accepted_writes, 0);
    EXPECT_EQ(run.unfinished_jobs, 50 - run.verdict.counts.accepted_writes);
    EXPECT_TRUE(run.stopped_short);
  }
}

TEST(ShareExpectations, AreJudgedOnTheRunsWithAtLeastOneAndReadable) {
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "short-lease", "lock": {"lease": "1s"},
      "workers": {"work": {"dist": "uniform", "min": "500ms", "max": "2s"}},
      "expect": {"fencing-off": {"stale_write": "<=2%", "lost_update": ">50%"}}})",
                                                                 "short-lease.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(10));
  const ModeSummary& mode = summary.modes.at(0);
  const ExpectationResult& stale = expectation_on(summary, checker::ViolationKind::kStaleWrite);
  const std::int64_t with_stale = mode.runs_with.at(checker::ViolationKind::kStaleWrite);
  ASSERT_GT(with_stale, 0);
  EXPECT_LE(with_stale, mode.runs);
  EXPECT_LT(with_stale, mode.violations.at(checker::ViolationKind::kStaleWrite)) << "runs, not violations, are counted";
  EXPECT_EQ(stale.actual, with_stale);
  EXPECT_FALSE(stale.ok);
  EXPECT_EQ(reports::expectation_words(stale),
            fmt::format("expected stale_write <=2% of runs, got {} of 10 runs ({:.3g}%)", with_stale, with_stale * 10.0));
  EXPECT_EQ(expectation_on(summary, checker::ViolationKind::kLostUpdate).ok,
            mode.runs_with.at(checker::ViolationKind::kLostUpdate) * 2 > mode.runs);
}

TEST(ShareExpectations, AMergeOfShardsJudgesTheShareOfTheWhole) {
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "short-lease", "lock": {"lease": "1s"},
      "workers": {"work": {"dist": "uniform", "min": "500ms", "max": "2s"}},
      "expect": {"fencing-off": {"stale_write": ">=30%"}}})",
                                                                 "short-lease.json");
  const ScenarioSummary whole = run_scenario(scenario, seeds(12));
  std::vector<ScenarioSummary> merged;
  for (std::uint64_t shard = 0; shard < 3; ++shard) {
    RunRequest request = seeds(12);
    request.shard_index = shard;
    request.shard_count = 3;
    merge_summaries(merged, reports::summary_from_json(reports::summary_to_json({run_scenario(scenario, request)}), "shard.json"));
  }
  ASSERT_EQ(merged.size(), 1u);
  const ExpectationResult& merged_result = expectation_on(merged[0], checker::ViolationKind::kStaleWrite);
  const ExpectationResult& whole_result = expectation_on(whole, checker::ViolationKind::kStaleWrite);
  EXPECT_EQ(merged_result.actual, whole_result.actual);
  EXPECT_EQ(merged_result.runs, 12);
  EXPECT_EQ(merged_result.bound, whole_result.bound);
  EXPECT_EQ(merged_result.ok, whole_result.ok);
  EXPECT_EQ(merged[0].ok, whole.ok);
}

// h01: one pause of worker-1 past its lease per run, overlapped by several
// short holds of the next holder: several pairs, one incident per run.
TEST(Incidents, AreJudgedByNameAndShownAsTheTableHeadlineWithThePairsBelow) {
  scenario::Scenario scenario = scenario::parse_scenario(
      R"({"name": "one-pause", "lock": {"lease": "10s"}, "workers": {"count": 2, "work": "500ms", "start": "0s"},
          "workload": {"kind": "counter", "jobs": 20}, "storage": {"fencing": "off"},
          "faults": [{"kind": "pause", "target": "worker-1", "when": "after-acquire", "for": "30s"}],
          "expect": {"fencing-off": {"incidents.double_holder": "<=4", "double_holder": ">4"}}})",
      "one-pause.json");
  const ScenarioSummary summary = run_scenario(scenario, seeds(4));
  const ModeSummary& mode = summary.modes.at(0);
  const checker::ViolationKind kind = checker::ViolationKind::kDoubleHolder;
  EXPECT_EQ(mode.incidents.at(kind), 4) << "one pause per run is one incident per run";
  EXPECT_GT(mode.violations.at(kind), 4) << "worker-2 holds many times during each pause";
  EXPECT_EQ(expectation_on(summary, scenario::IncidentsOf{kind}).actual, 4);
  EXPECT_TRUE(summary.ok);

  const std::string table = reports::summary_to_table({summary});
  // The row's cells: name, mode, status, runs, failed, dgrant, dholder, ...
  std::istringstream row{table.substr(table.find("one-pause"))};
  std::vector<std::string> cells(7);
  for (std::string& cell : cells) row >> cell;
  EXPECT_EQ(cells[5], "0") << table;
  EXPECT_EQ(cells[6], "4") << "the dholder cell holds the incidents:\n" << table;
  EXPECT_NE(table.find(fmt::format("one-pause fencing-off: double_holder 4 ({} pairs, 100% of runs)",
                                   mode.violations.at(kind))),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace locksim::runner
