// The replay command of a failed expectation shows that failure: the first
// seed with the measure it bounds (the first seed with any violation may show
// another kind), or no seed at all when it expected a hazard that never came.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/expectation_text.h"
#include "reports/summary_json.h"
#include "runner/scenario_run.h"
#include "runner/seed_run.h"
#include "scenario/scenario_parser.h"
#include "run_request.h"

namespace locksim::runner {
namespace {

using testing::seeds;

using checker::ViolationKind;

scenario::Scenario with_expectation(const std::string& file, scenario::Expectation expectation) {
  scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + file);
  scenario.expect = {std::move(expectation)};
  return scenario;
}

const ExpectationResult& failed_one(const ScenarioSummary& summary) {
  const auto found = std::find_if(summary.expectations.begin(), summary.expectations.end(),
                                  [](const ExpectationResult& result) { return result.stated && !result.ok; });
  EXPECT_NE(found, summary.expectations.end());
  return *found;
}

TEST(FailureReplay, AnUpperBoundThatFailsReplaysTheFirstSeedWithItsKindAroundThatKind) {
  // h26's superseded holders lose updates in some seeds and only overlap in others.
  for (const ViolationKind kind : {ViolationKind::kLostUpdate, ViolationKind::kStaleWrite, ViolationKind::kDoubleHolder}) {
    const scenario::Scenario scenario = with_expectation(
        "h26-lease-shorter-than-work.json",
        {model::Fencing::kOff, kind, scenario::Bound{scenario::Comparison::kEqual, scenario::Scale::kTotal, 0}});
    const ScenarioSummary summary = run_scenario(scenario, seeds(30));
    const ExpectationResult& failed = failed_one(summary);
    ASSERT_TRUE(failed.shown_by_seed.has_value()) << checker::violation_kind_name(kind);
    const std::uint64_t seed = *failed.shown_by_seed;
    // That seed shows the kind; no lower seed does.
    EXPECT_GT(run_seed(scenario, seed, model::Fencing::kOff).verdict.violation_count(kind).value_or(0), 0);
    for (std::uint64_t lower = scenario.first_seed.value_or(1); lower < seed; ++lower) {
      EXPECT_EQ(run_seed(scenario, lower, model::Fencing::kOff).verdict.violation_count(kind).value_or(0), 0) << lower;
    }
    EXPECT_NE(failed.replay.find(fmt::format("--seed {} --fencing off --around {}", seed,
                                             checker::violation_kind_name(kind))),
              std::string::npos)
        << failed.replay;
    const nlohmann::json json = nlohmann::json::parse(reports::summary_to_json({summary}));
    EXPECT_EQ(json["scenarios"][0]["expectations"][0]["seed"], seed);
    EXPECT_EQ(json["scenarios"][0]["expectations"][0]["replay"], failed.replay);
  }
}

TEST(FailureReplay, AHazardExpectedButNeverSeenHasNoSeedToShow) {
  const scenario::Scenario scenario = with_expectation(
      "control-no-faults.json",
      {std::nullopt, ViolationKind::kDoubleGrant, scenario::Bound{scenario::Comparison::kGreater, scenario::Scale::kTotal, 0}});
  const ScenarioSummary summary = run_scenario(scenario, seeds(5));
  const ExpectationResult& failed = failed_one(summary);
  EXPECT_FALSE(failed.shown_by_seed.has_value());
  EXPECT_TRUE(failed.replay.empty());
  EXPECT_EQ(reports::failure_replay_words(failed), "no seed showed it in 5 runs");
}

}  // namespace
}  // namespace locksim::runner
