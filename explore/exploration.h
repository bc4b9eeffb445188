#pragma once
// One exploration from start to end, as `locksim explore` and the teaching
// report both need it: search the scenario's plan space for a run that
// shows the goal, shrink it, and describe the minimal counterexample — its
// history and the violation it shows (reports/ tells them in words), its
// critical events, and the minimal plan as a scenario file, read back and
// run to check that it shows the same violation.
//
// Deterministic: the same scenario, goal and options give the same result.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/violation.h"
#include "explore/case_runner.h"
#include "explore/critical_event.h"
#include "explore/explore_goal.h"
#include "explore/plan_space.h"
#include "explore/search.h"
#include "scenario/scenario.h"

namespace locksim::explore {

struct Finding {
  Counterexample counterexample;
  RunnableCase minimal;                 // the minimal case, runnable
  std::vector<std::string> history;     // the minimal run's history lines
  checker::Violation violation;         // the first violation of the goal's kind in that run
  std::vector<CriticalEvent> critical;  // one per fault of the minimal plan (or per setting, without faults)
  std::string minimal_file_text;        // the minimal plan as a scenario file (minimal_scenario.h)
};

struct Exploration {
  ExploreGoal goal;
  std::uint64_t seed = 1;
  int seeds_run = 0;  // the scenario's own seeds, run first
  int tests_run = 0;  // cases drawn from the plan space after them
  std::optional<Finding> finding;
  std::int64_t simulations = 0;  // every run the search, the shrinking and the critical events took

  // Finding what the file claims is the expected outcome; so is finding
  // nothing that breaks it.
  [[nodiscard]] bool as_expected() const { return finding.has_value() == (goal.meaning == GoalMeaning::kShowHazard); }
};

// Where the search found `counterexample`, for people: "the scenario's
// seed 17" or "search seed 1, test 3".
[[nodiscard]] std::string found_where(const Counterexample& counterexample, std::uint64_t search_seed);

// `minimal_path`: where the minimal file will be written (named in messages
// about it). Throws std::runtime_error when the minimal file does not replay
// to the same violation (a bug in locksim), and as CaseRunner does.
[[nodiscard]] Exploration explore(const scenario::Scenario& scenario, const ExploreGoal& goal,
                                  const SearchOptions& options, const std::string& minimal_path);

}  // namespace locksim::explore
