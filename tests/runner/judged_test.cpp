// "judged" and "reproduced": a scenario proves something only when a stated
// expectation applies to every mode that ran (the implicit stopped_short ==0
// judges nothing), and a held "> 0"-style expectation means the hazard was
// reproduced, not that the scenario "passed". Also after a merge.
#include <gtest/gtest.h>

#include "runner/summary.h"
#include "scenario/scenario_parser.h"

namespace locksim::runner {
namespace {

// A summary of `runs` runs per mode with `stale_writes` stale writes in each,
// judged against the expectations `expect` states (a JSON object or "").
ScenarioSummary judged_summary(const std::string& expect, std::int64_t stale_writes,
                               const std::string& fencing = "compare") {
  const std::string text = R"({"name": "s", "storage": {"fencing": ")" + fencing + "\"}" +
                           (expect.empty() ? std::string{} : ", \"expect\": " + expect) + "}";
  const scenario::Scenario scenario = scenario::parse_scenario(text, "s.json");
  ScenarioSummary summary;
  summary.name = scenario.name;
  for (const model::Fencing mode : scenario.fencing_modes) {
    ModeSummary part = empty_mode_summary(mode, 0);
    part.runs = 10;
    part.violations[checker::ViolationKind::kStaleWrite] = stale_writes;
    part.runs_with[scenario::Measure{checker::ViolationKind::kStaleWrite}] = stale_writes > 0 ? 10 : 0;
    summary.modes.push_back(part);
  }
  summary.expectations = expectations_for(scenario, summary.modes);
  judge(summary);
  return summary;
}

TEST(Judged, AScenarioWithoutExpectationsIsOkButNotJudgedThoughTheImplicitStoppedShortHeld) {
  const ScenarioSummary summary = judged_summary("", 3);
  EXPECT_TRUE(summary.ok);
  EXPECT_FALSE(summary.judged);
  EXPECT_FALSE(summary.reproduced);
  for (const ModeSummary& mode : summary.modes) EXPECT_FALSE(mode.judged);
}

TEST(Judged, AModeNoStatedExpectationAppliesToMakesTheScenarioNotJudged) {
  const ScenarioSummary summary = judged_summary(R"({"fencing-on": {"stale_write": ">0"}})", 3);
  ASSERT_EQ(summary.modes.size(), 2u);
  EXPECT_FALSE(summary.modes[0].judged);  // fencing-off
  EXPECT_TRUE(summary.modes[1].judged);   // fencing-on
  EXPECT_FALSE(summary.judged);
  EXPECT_FALSE(summary.reproduced);
}

TEST(Judged, AHeldGreaterThanZeroExpectationIsAReproducedHazard) {
  EXPECT_TRUE(judged_summary(R"({"any": {"stale_write": ">0"}})", 3).reproduced);
  EXPECT_TRUE(judged_summary(R"({"any": {"stale_write": ">=1"}})", 3).reproduced);
  EXPECT_TRUE(judged_summary(R"({"any": {"stale_write": ">50%"}})", 3).reproduced);
}

TEST(Judged, OnlyUpperBoundsHeldIsPassedNotReproduced) {
  const ScenarioSummary summary = judged_summary(R"({"any": {"stale_write": "<=5", "double_grant": "==0"}})", 3);
  EXPECT_TRUE(summary.ok);
  EXPECT_TRUE(summary.judged);
  EXPECT_FALSE(summary.reproduced);
}

TEST(Judged, AFailedHazardExpectationIsNeitherOkNorReproduced) {
  const ScenarioSummary summary = judged_summary(R"({"any": {"stale_write": ">0"}})", 0);
  EXPECT_FALSE(summary.ok);
  EXPECT_TRUE(summary.judged);
  EXPECT_FALSE(summary.reproduced);
}

TEST(Judged, MergingShardsJudgesCoverageAndReproductionOnTheTotals) {
  // Shard 0 saw no stale write, shard 1 did: only the total reproduces ">0".
  std::vector<ScenarioSummary> total{judged_summary(R"({"any": {"stale_write": ">0"}})", 0, "off")};
  EXPECT_FALSE(total[0].reproduced);
  merge_summaries(total, {judged_summary(R"({"any": {"stale_write": ">0"}})", 2, "off")});
  EXPECT_TRUE(total[0].ok);
  EXPECT_TRUE(total[0].judged);
  EXPECT_TRUE(total[0].reproduced);
}

}  // namespace
}  // namespace locksim::runner
