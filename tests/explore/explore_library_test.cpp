// explore over the whole built-in library (every file explores as it
// claims, and every minimal file it writes is reproduced by `run`), and
// from the seed of a failure `run` shows in 1 of 200. Slow under the
// sanitizers (label "library": the normal build runs it).

#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "explore/exploration.h"
#include "explore/search.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_parser.h"

namespace locksim::explore {
namespace {

using checker::ViolationKind;

// The files whose claimed safety holds for their own fault's timing only:
// explore moves the fault to an anchor of its target and breaks it. Each
// file's description says so. By the anchor explore moves the fault to.
const std::map<std::string, scenario::TriggerEvent> kSafeOnlyAtTheirOwnTiming{
    // A pause between the lease check and the write: the check cannot see it.
    {"h03-monotonic-lease-check", scenario::TriggerEvent::kBeforeWrite},
    {"h13-compare-and-extend", scenario::TriggerEvent::kBeforeWrite},
    {"h14-redlock-recheck-elapsed", scenario::TriggerEvent::kBeforeWrite},
    {"h15-etcd-fixed", scenario::TriggerEvent::kBeforeWrite},
    // etcd 3.4.23's leader woken while the holder still holds: its stale lessor revokes the session (#15247).
    {"h16-consensus-leader-pause", scenario::TriggerEvent::kAfterGrant},
    // The primary lost right after the grant, before the key replicated.
    {"failover-primary-crash", scenario::TriggerEvent::kAfterGrant},
    {"failover-replica-restart", scenario::TriggerEvent::kAfterGrant},
    {"failover-replicated", scenario::TriggerEvent::kAfterGrant},
};

bool fires_at(const scenario::Plan& plan, scenario::TriggerEvent anchor) {
  return std::ranges::any_of(plan.faults, [anchor](const scenario::PlannedFault& fault) {
    const auto* on_event = std::get_if<scenario::OnEvent>(&fault.trigger);
    return on_event != nullptr && on_event->when == anchor;
  });
}

// Every built-in file: explore meets its expectation (shows the claimed
// hazard, or finds nothing against the claimed safety) — except the files
// above, where it breaks the claim by moving a fault to the named anchor —
// and every minimal file it writes runs as `run` would judge it:
// reproduced for a hazard, failing for a broken claim.
TEST(Explore, EveryBuiltInScenarioExploresAsItClaimsAndItsMinimalFileIsReproduced) {
  int hazards = 0;
  for (const auto& entry : std::filesystem::directory_iterator{LOCKSIM_SCENARIO_DIR}) {
    if (entry.path().extension() != ".json") continue;
    const scenario::Scenario scenario = scenario::load_scenario_file(entry.path().string());
    const ExploreGoal goal = choose_goal(scenario, std::nullopt, std::nullopt);
    const Exploration exploration = explore::explore(scenario, goal, {.seed = 1, .tests = 100}, "minimal.json");
    if (const auto broken = kSafeOnlyAtTheirOwnTiming.find(scenario.name); broken != kSafeOnlyAtTheirOwnTiming.end()) {
      EXPECT_EQ(goal.meaning, GoalMeaning::kBreakSafety) << scenario.name;
      ASSERT_TRUE(exploration.finding) << scenario.name << ": explore no longer breaks its claim; update the list";
      EXPECT_TRUE(fires_at(exploration.finding->minimal.plan, broken->second))
          << scenario.name << ": broken another way than at the listed anchor";
      const scenario::Scenario saved = scenario::parse_scenario(exploration.finding->minimal_file_text, "minimal.json");
      runner::RunRequest request;
      request.first_seed = *saved.first_seed;
      EXPECT_FALSE(runner::run_scenario(saved, request).ok) << scenario.name << "'s minimal file passes when run";
      continue;
    }
    EXPECT_TRUE(exploration.as_expected()) << scenario.name << ": " << goal.reason;
    if (!exploration.finding) continue;
    ++hazards;
    const scenario::Scenario saved = scenario::parse_scenario(exploration.finding->minimal_file_text, "minimal.json");
    runner::RunRequest request;
    request.first_seed = *saved.first_seed;
    const runner::ScenarioSummary summary = runner::run_scenario(saved, request);
    EXPECT_TRUE(summary.ok) << scenario.name << "'s minimal file fails when run";
    EXPECT_TRUE(summary.reproduced) << scenario.name << "'s minimal file is not reproduced";
  }
  EXPECT_GE(hazards, 25) << "the library claims a hazard in most files";
}

// A user's nightly job: three workers, a 45 s lease, a GC pause of up to
// a minute about once an hour. `run` shows a stale write in about 1 seed of
// 200; a search of drawn plans alone can pass 100 tests without one.
const char* const kNightlyJob = R"({
  "name": "nightly-job", "duration": "10m", "seeds": 200,
  "lock": {"lease": "45s"},
  "workers": {"count": 3, "work": {"dist": "uniform", "min": "1s", "max": "5s"}},
  "workload": {"kind": "counter", "key": "billed", "jobs": 50},
  "storage": {"fencing": "off"},
  "faults": [{"kind": "pause", "target": "workers", "rate": "1/h", "for": {"dist": "uniform", "min": "1s", "max": "60s"}}],
  "expect": {"fencing-off": {"stale_write": "==0", "lost_update": "==0"}}
})";

// Under the sanitizers this one test took 46 s: it runs in the normal build (label "library").
TEST(Explore, StartsFromTheFirstOfTheScenariosSeedsThatRunShowsFailing) {
  const scenario::Scenario scenario = scenario::parse_scenario(kNightlyJob, "nightly-job.json");
  std::optional<std::uint64_t> first_failing;
  for (std::uint64_t seed = 1; seed <= 200 && !first_failing; ++seed) {
    const runner::SeedRun run = runner::run_seed(scenario, seed, model::Fencing::kOff);
    if (run.verdict.violation_count(ViolationKind::kStaleWrite).value_or(0) > 0) first_failing = seed;
  }
  ASSERT_TRUE(first_failing) << "the scenario no longer fails in 200 seeds: the test needs another";
  EXPECT_GT(*first_failing, 10u) << "the failure is meant to be rare";

  const ExploreGoal goal = choose_goal(scenario, std::nullopt, std::nullopt);
  CaseRunner runner{goal.mode, goal.kinds};
  const SearchResult result = search(scenario, runner, {.seed = 1});
  ASSERT_TRUE(result.counterexample);
  EXPECT_EQ(result.counterexample->run_seed, first_failing);
  EXPECT_EQ(result.counterexample->test, 0);
  EXPECT_EQ(result.seeds_run, static_cast<int>(*first_failing));
  EXPECT_EQ(result.tests_run, 0);
  // The shrunk case still shows it, and runs no more than the seed did.
  EXPECT_TRUE(runner.shows(runnable(scenario, result.counterexample->minimal), result.counterexample->kind));
}

}  // namespace
}  // namespace locksim::explore
