#pragma once
// explore's search: draw up to `tests` cases of the scenario's plan space
// (plan_space.h) from --seed, run each in the goal's fencing mode, and shrink
// the first that shows a goal kind to a minimal case that still shows that
// same kind.
//
// Shrinking is rapidcheck's: each case is an rc::Shrinkable whose shrinks
// are its simpler neighbours; locksim walks them greedily (the first
// neighbour that still fails becomes the case, until none does), skipping a
// neighbour that runs exactly like the case. The walk is locksim's own so it
// stays reproducible from --seed and prints nothing of rapidcheck's.

#include <cstdint>
#include <optional>

#include "explore/case_runner.h"
#include "explore/explore_goal.h"
#include "explore/plan_space.h"
#include "scenario/scenario.h"

namespace locksim::explore {

struct SearchOptions {
  std::uint64_t seed = 1;
  int tests = 100;
  std::int64_t most_shrink_runs = 20'000;  // a bound on the walk, far above what the built-in scenarios need
};

struct Counterexample {
  int test = 0;  // which test found it, from 1
  checker::ViolationKind kind = checker::ViolationKind::kStaleWrite;
  ExploreCase found;
  ExploreCase minimal;
  int shrink_steps = 0;             // neighbours accepted
  std::int64_t shrink_runs = 0;     // simulations the walk ran
  bool shrink_cut_short = false;    // the walk hit most_shrink_runs
};

struct SearchResult {
  int tests_run = 0;
  std::optional<Counterexample> counterexample;
};

[[nodiscard]] SearchResult search(const scenario::Scenario& scenario, CaseRunner& runner, const SearchOptions& options);

}  // namespace locksim::explore
