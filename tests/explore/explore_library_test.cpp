// explore over the whole built-in library: every file explores as it
// claims, and every minimal file it writes is reproduced by `run`. Slow
// under the sanitizers (label "library": the normal build runs it).

#include <filesystem>

#include <gtest/gtest.h>

#include "explore/exploration.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_parser.h"

namespace locksim::explore {
namespace {

// Every built-in file: explore meets its expectation (shows the claimed
// hazard, or finds nothing against the claimed safety), and every minimal
// file it writes runs as `run` would judge it: reproduced for a hazard.
TEST(Explore, EveryBuiltInScenarioExploresAsItClaimsAndItsMinimalFileIsReproduced) {
  int hazards = 0;
  for (const auto& entry : std::filesystem::directory_iterator{LOCKSIM_SCENARIO_DIR}) {
    if (entry.path().extension() != ".json") continue;
    const scenario::Scenario scenario = scenario::load_scenario_file(entry.path().string());
    const ExploreGoal goal = choose_goal(scenario, std::nullopt, std::nullopt);
    const Exploration exploration = explore::explore(scenario, goal, {.seed = 1, .tests = 100}, "minimal.json");
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

}  // namespace
}  // namespace locksim::explore
