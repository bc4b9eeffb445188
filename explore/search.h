#pragma once
// explore's search. First the scenario's own seeds, as `run` runs them
// (first_seed, first_seed + 1, …): a failure `run` shows is never missed.
// Then up to `tests` cases drawn from the scenario's plan space
// (plan_space.h) from --seed. Each runs in the goal's fencing mode; the
// first that shows a goal kind is shrunk to a minimal case that still shows
// that same kind.
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

// How many of the scenario's seeds find, with 99 % probability, a failure
// that `run` shows in 1 seed of 100: the least n with 0.99^n <= 0.01.
inline constexpr int kSeedsToFindOneInAHundred = 459;

struct SearchOptions {
  std::uint64_t seed = 1;
  int tests = 100;
  std::int64_t most_shrink_runs = 20'000;  // a bound on the walk, far above what the built-in scenarios need
  // How many of the scenario's seeds to run first; nullopt: seeds_to_run_first.
  std::optional<int> from_seeds = std::nullopt;
};

// The default: the file's `seeds` (what `run` runs), and at least
// kSeedsToFindOneInAHundred.
[[nodiscard]] int seeds_to_run_first(const scenario::Scenario& scenario);

struct Counterexample {
  int test = 0;                           // which drawn test found it, from 1; 0 when a seed did
  std::optional<std::uint64_t> run_seed;  // the scenario's seed that found it, run as `run` runs it
  checker::ViolationKind kind = checker::ViolationKind::kStaleWrite;
  ExploreCase found;
  ExploreCase minimal;
  int shrink_steps = 0;             // neighbours accepted
  std::int64_t shrink_runs = 0;     // simulations the walk ran
  bool shrink_cut_short = false;    // the walk hit most_shrink_runs
};

struct SearchResult {
  int seeds_run = 0;
  int tests_run = 0;
  std::optional<Counterexample> counterexample;
};

[[nodiscard]] SearchResult search(const scenario::Scenario& scenario, CaseRunner& runner, const SearchOptions& options);

}  // namespace locksim::explore
