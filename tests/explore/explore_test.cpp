// explore end to end on built-in scenarios: the pause-past-lease hazard
// shrinks to one pause, two workers and a critical pause length at the true
// threshold; the minimal file replays; safe scenarios pass; a seed repeats.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "explore/critical_event.h"
#include "explore/explore_goal.h"
#include "explore/minimal_scenario.h"
#include "explore/search.h"
#include "explore_support.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_parser.h"

namespace locksim::explore {
namespace {

using checker::ViolationKind;
using testing::builtin;

struct Explored {
  scenario::Scenario scenario;
  ExploreGoal goal;
  SearchResult result;
};

// `from_seeds` 0: only the drawn plans (most tests here are about them).
Explored explore_builtin(const std::string& name, std::uint64_t seed, int tests = 100, std::optional<int> from_seeds = 0) {
  Explored explored{builtin(name), {}, {}};
  explored.goal = choose_goal(explored.scenario, std::nullopt, std::nullopt);
  CaseRunner runner{explored.goal.mode, explored.goal.kinds};
  explored.result = search(explored.scenario, runner, {.seed = seed, .tests = tests, .from_seeds = from_seeds});
  return explored;
}

// The pause length at which the stale write starts, from the history alone:
// the paused worker's write lands a fixed time after it wakes (its read, its
// work), and it is stale once it lands after storage served the next holder,
// which happens at a time the pause does not move. So the threshold is the
// pause minus how late the stale write came after that service.
std::int64_t true_threshold_ns(const std::vector<std::string>& history, const checker::Violation& stale_write) {
  std::string paused;
  std::int64_t pause_ns = -1;
  std::int64_t served_ns = -1;
  for (const std::string& line : history) {
    const nlohmann::json event = nlohmann::json::parse(line);
    const std::string ev = event["ev"];
    if (ev == "fault.begin" && event["kind"] == "pause") {
      paused = event["target"];
      pause_ns = event["for_ns"];
    }
    const bool served = ev == "read.accept" || ev == "write.accept";
    const std::string by = served ? event.value(ev == "read.accept" ? "reader" : "writer", "") : "";
    if (served && !paused.empty() && by != paused && served_ns < 0) served_ns = event["t"];
  }
  EXPECT_GE(pause_ns, 0) << "no pause in the history";
  EXPECT_GE(served_ns, 0) << "storage never served another worker";
  return pause_ns - (stale_write.time_ns - served_ns);
}

TEST(Explore, PausePastLeaseShrinksToOnePauseTwoWorkersAndTheTrueThreshold) {
  const Explored explored = explore_builtin("h01-gc-pause-past-lease", 1);
  ASSERT_TRUE(explored.result.counterexample) << "no counterexample in " << explored.result.tests_run << " tests";
  const Counterexample& found = *explored.result.counterexample;
  EXPECT_EQ(found.kind, ViolationKind::kStaleWrite);

  const RunnableCase minimal = runnable(explored.scenario, found.minimal);
  ASSERT_EQ(minimal.plan.faults.size(), 1u);
  EXPECT_EQ(minimal.plan.faults.front().kind(), scenario::FaultKind::kPause);
  EXPECT_LE(minimal.scenario.system.workers.count, 2);

  CaseRunner runner{explored.goal.mode, explored.goal.kinds};
  std::vector<std::string> history;
  const runner::SeedRun run = runner.run_watched(minimal, history);
  const auto stale = std::ranges::find_if(run.verdict.violations, [](const checker::Violation& violation) {
    return violation.kind == ViolationKind::kStaleWrite;
  });
  ASSERT_NE(stale, run.verdict.violations.end());
  const std::int64_t expected = true_threshold_ns(history, *stale);

  const std::vector<CriticalEvent> critical = critical_events(minimal, runner, found.kind, history);
  ASSERT_EQ(critical.size(), 1u);
  EXPECT_TRUE(critical.front().needed);
  ASSERT_TRUE(critical.front().threshold);
  const std::int64_t threshold = critical.front().threshold->count_ns();
  EXPECT_LE(std::llabs(threshold - expected), expected / 100) << "critical " << threshold << " ns, true " << expected << " ns";
  // The threshold sits at what was left of the lease, give or take what
  // worker-1 does after waking (its read and work carry a pause a little
  // shorter than the lease's rest past it; the explanation says so).
  ASSERT_TRUE(critical.front().lease_left);
  EXPECT_NEAR(static_cast<double>(threshold), static_cast<double>(critical.front().lease_left->count_ns()), 500e6);
}

TEST(Explore, AFaultFreePlanBisectsItsWorkToTheTrueThreshold) {
  // Work longer than the lease, no fault: the work length is the critical setting.
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
    "name": "long-work", "duration": "1m", "lock": {"lease": "1s"},
    "workers": {"count": 2, "work": "1.5s"}, "workload": {"jobs": 2},
    "network": {"delay": "1ms"},
    "expect": {"fencing-off": {"stale_write": ">0"}}
  })", "long-work.json");
  const ExploreGoal goal = choose_goal(scenario, std::nullopt, std::nullopt);
  CaseRunner runner{goal.mode, goal.kinds};
  const SearchResult result = search(scenario, runner, {.seed = 1, .tests = 20});
  ASSERT_TRUE(result.counterexample);
  const RunnableCase minimal = runnable(scenario, result.counterexample->minimal);
  ASSERT_TRUE(minimal.plan.faults.empty());

  std::vector<std::string> history;
  const runner::SeedRun run = runner.run_watched(minimal, history);
  const auto stale = std::ranges::find_if(run.verdict.violations, [](const checker::Violation& violation) {
    return violation.kind == ViolationKind::kStaleWrite;
  });
  ASSERT_NE(stale, run.verdict.violations.end());
  // As for a pause: the stale write moves with the writer's work; the later
  // holder's service at storage that made it stale (the checker's evidence)
  // does not.
  std::int64_t served_ns = -1;
  for (const std::string& line : history) {
    const nlohmann::json event = nlohmann::json::parse(line);
    const bool evidence = std::ranges::count(stale->events, event["i"].get<std::int64_t>()) > 0;
    if (evidence && event["ev"] == "read.accept") served_ns = event["t"];
  }
  ASSERT_GE(served_ns, 0) << "the stale write's evidence names no read of the later holder";
  const std::int64_t expected = 1'500'000'000 - (stale->time_ns - served_ns);

  const std::vector<CriticalEvent> critical = critical_events(minimal, runner, ViolationKind::kStaleWrite, history);
  const auto work = std::ranges::find_if(critical, [](const CriticalEvent& event) { return event.setting == "workers.work"; });
  ASSERT_NE(work, critical.end());
  EXPECT_TRUE(work->needed);
  ASSERT_TRUE(work->threshold);
  EXPECT_LE(std::llabs(work->threshold->count_ns() - expected), expected / 100)
      << "critical " << work->threshold->count_ns() << " ns, true " << expected << " ns";
}

TEST(Explore, TheMinimalFileReplaysToTheSameViolationAndRunSaysReproduced) {
  const Explored explored = explore_builtin("h01-gc-pause-past-lease", 1);
  ASSERT_TRUE(explored.result.counterexample);
  const Counterexample& found = *explored.result.counterexample;
  const RunnableCase minimal = runnable(explored.scenario, found.minimal);
  const std::string text = minimal_scenario_json({testing::builtin_text("h01-gc-pause-past-lease"), "a test", "it shows."},
                                                 minimal, explored.goal, found.kind);

  const scenario::Scenario saved = scenario::parse_scenario(text, "minimal.json");
  ASSERT_TRUE(saved.first_seed);
  EXPECT_EQ(saved.fencing_modes, std::vector{model::Fencing::kOff});
  const runner::SeedRun replayed = runner::run_seed(saved, *saved.first_seed, model::Fencing::kOff);
  EXPECT_GT(replayed.verdict.violation_count(ViolationKind::kStaleWrite).value_or(0), 0);

  runner::RunRequest request;
  request.first_seed = *saved.first_seed;
  const runner::ScenarioSummary summary = runner::run_scenario(saved, request);
  EXPECT_TRUE(summary.ok);
  EXPECT_TRUE(summary.reproduced);
}

TEST(Explore, SafeScenariosPassEveryTest) {
  // Consensus with fencing, fenced reads and writes, and validation with the service.
  for (const char* name : {"h16-consensus-wall-clock-jump", "h22-fenced-reads", "h22-validate-with-service"}) {
    const Explored explored = explore_builtin(name, 1, 60);
    EXPECT_EQ(explored.goal.meaning, GoalMeaning::kBreakSafety) << name;
    EXPECT_FALSE(explored.result.counterexample) << name << ": a counterexample at test "
                                                 << explored.result.counterexample->test;
    EXPECT_EQ(explored.result.tests_run, 60) << name;
  }
}

TEST(Explore, DefaultsRunEnoughSeedsToFindAOneInAHundredFailure) {
  // 0.99^n <= 0.01 first holds at n = 459.
  EXPECT_LE(std::pow(0.99, kSeedsToFindOneInAHundred), 0.01);
  EXPECT_GT(std::pow(0.99, kSeedsToFindOneInAHundred - 1), 0.01);
  const scenario::Scenario scenario = builtin("h22-fenced-reads");
  EXPECT_EQ(seeds_to_run_first(scenario), std::max(scenario.seeds, kSeedsToFindOneInAHundred));
  const Explored explored = explore_builtin("h22-fenced-reads", 1, 10, std::nullopt);
  EXPECT_FALSE(explored.result.counterexample);
  EXPECT_EQ(explored.result.seeds_run, seeds_to_run_first(scenario));
  EXPECT_EQ(explored.result.tests_run, 10);
}

// check_before_write looks at the lease, then writes; a pause between the
// two is invisible to the check. The file's own pause (after the acquire)
// never lands there, so `run` passes; explore moves the pause to the
// worker's before-write anchor and breaks the claim.
TEST(Explore, FindsThePauseBetweenTheLeaseCheckAndTheWrite) {
  const scenario::Scenario scenario = builtin("h03-monotonic-lease-check");
  ASSERT_TRUE(scenario.system.workers.check_before_write);
  runner::RunRequest request;
  EXPECT_TRUE(runner::run_scenario(scenario, request).ok) << "run shows the claim holding for the file's own pause";

  const Explored explored = explore_builtin("h03-monotonic-lease-check", 1, 100, std::nullopt);
  ASSERT_TRUE(explored.result.counterexample);
  EXPECT_EQ(explored.result.counterexample->kind, ViolationKind::kStaleWrite);
  const RunnableCase minimal = runnable(explored.scenario, explored.result.counterexample->minimal);
  ASSERT_EQ(minimal.plan.faults.size(), 1u);
  const auto* on_event = std::get_if<scenario::OnEvent>(&minimal.plan.faults.front().trigger);
  ASSERT_NE(on_event, nullptr);
  EXPECT_EQ(on_event->when, scenario::TriggerEvent::kBeforeWrite);
}

TEST(Explore, TheSameSeedRepeatsTheSearch) {
  const Explored first = explore_builtin("random-gc-pauses", 5);
  const Explored again = explore_builtin("random-gc-pauses", 5);
  ASSERT_TRUE(first.result.counterexample);
  ASSERT_TRUE(again.result.counterexample);
  EXPECT_EQ(first.result.counterexample->test, again.result.counterexample->test);
  EXPECT_EQ(first.result.counterexample->found, again.result.counterexample->found);
  EXPECT_EQ(first.result.counterexample->minimal, again.result.counterexample->minimal);
  EXPECT_EQ(first.result.counterexample->shrink_runs, again.result.counterexample->shrink_runs);
}

TEST(Explore, ShrinkingDropsTheFaultsThatDoNotMatter) {
  // random-gc-pauses draws up to a dozen pauses; one is enough for a stale write.
  const Explored explored = explore_builtin("random-gc-pauses", 1);
  ASSERT_TRUE(explored.result.counterexample);
  const Counterexample& found = *explored.result.counterexample;
  const auto present = [&](const ExploreCase& point) {
    return std::ranges::count_if(point.faults, [](const FaultSlot& slot) { return slot.present; });
  };
  EXPECT_GT(present(found.found), 1);
  EXPECT_EQ(runnable(explored.scenario, found.minimal).plan.faults.size(), 1u);
}

TEST(ExploreGoal, HazardClaimsFirstThenForbiddenKindsThenHarmWithFencing) {
  const ExploreGoal hazard = choose_goal(builtin("h01-gc-pause-past-lease"), std::nullopt, std::nullopt);
  EXPECT_EQ(hazard.meaning, GoalMeaning::kShowHazard);
  EXPECT_EQ(hazard.mode, model::Fencing::kOff);
  EXPECT_EQ(hazard.kinds, (std::vector{ViolationKind::kStaleWrite, ViolationKind::kDoubleHolder}));

  // With fencing on, h01 claims only the double holder (fencing checks writes, not holders).
  const ExploreGoal fenced = choose_goal(builtin("h01-gc-pause-past-lease"), std::nullopt, model::Fencing::kOn);
  EXPECT_EQ(fenced.meaning, GoalMeaning::kShowHazard);
  EXPECT_EQ(fenced.kinds, std::vector{ViolationKind::kDoubleHolder});

  const ExploreGoal safety = choose_goal(builtin("h22-fenced-reads"), std::nullopt, std::nullopt);
  EXPECT_EQ(safety.meaning, GoalMeaning::kBreakSafety);
  EXPECT_EQ(safety.mode, model::Fencing::kOn);

  const scenario::Scenario silent = scenario::parse_scenario(R"({"name": "silent", "storage": {"fencing": "off"}})", "silent.json");
  const ExploreGoal harm = choose_goal(silent, std::nullopt, std::nullopt);
  EXPECT_EQ(harm.mode, model::Fencing::kOn);
  EXPECT_EQ(harm.kinds, (std::vector{ViolationKind::kStaleWrite, ViolationKind::kLostUpdate, ViolationKind::kDuplicateEffect}));

  const ExploreGoal target = choose_goal(builtin("h22-fenced-reads"), ViolationKind::kDoubleHolder, std::nullopt);
  EXPECT_EQ(target.kinds, std::vector{ViolationKind::kDoubleHolder});
}

}  // namespace
}  // namespace locksim::explore
