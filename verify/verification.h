#pragma once
// `locksim verify`: every run of a scenario within stated bounds, made and
// checked — not a sample. A run is a choice sequence (verify/scripted_chooser.h);
// a deviation is a choice point taking a value other than its default. The
// search runs every sequence with at most `deviations` deviations, level by
// level (0, then 1, then 2 …), each sequence once: the odometer of
// exhaustigen, bounded as CHESS bounds preemptions. The first level with a
// run that meets the goal gives the counterexample with the fewest
// deviations there are; its first such run in the search's fixed order is
// the one reported, whatever the number of threads.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "explore/explore_goal.h"
#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "verify/choice_domain.h"
#include "verify/scripted_chooser.h"

namespace locksim::verify {

struct Bounds {
  int deviations = 2;  // --deviations
  int anchors = 2;     // --anchors: a fault may move to any of its target's first N events of each kind
  int extra_faults = 0;  // --faults: up to this many more faults like the file's first pause (or crash)
  DomainOptions domain;
};

// The scenario with `bounds.extra_faults` copies of its first pause (else
// its first crash) appended, each hitting any node; chosen_plan makes each
// present or not. Empty when the file has neither: what to add is unknown.
[[nodiscard]] std::optional<scenario::Scenario> with_extra_faults(const scenario::Scenario& scenario, int extra_faults);

// One run of the search, as made.
struct VerifiedRun {
  std::vector<std::uint32_t> script;  // the choice indices, up to the last deviation
  Landings landings;                  // the landings its deviations use (verify/landing.h)
  std::vector<ChoicePoint> points;    // every choice point the run met
  std::vector<StorageAccess> storage_accesses;
  scenario::Plan plan;
  runner::SeedRun run;

  [[nodiscard]] std::vector<ChoicePoint> deviations() const;
};

struct Progress {
  std::int64_t runs = 0;            // runs checked so far
  std::int64_t runs_expected = 0;   // the estimate for every level up to the bound
  int level = 0;                    // the deviations of the runs being checked
};

struct Verification {
  Bounds bounds;
  explore::ExploreGoal goal;
  std::int64_t runs = 0;         // distinct runs checked (each choice sequence once)
  std::int64_t simulations = 0;  // runs made, with those made again to reach a deeper level
  std::map<checker::ViolationKind, std::int64_t> runs_showing;  // every kind the checker found, in runs checked
  int levels_done = 0;           // every run with fewer deviations than this was checked
  std::optional<VerifiedRun> counterexample;
  double seconds = 0;
};

// About how many runs each level up to `bounds.deviations` has, from the
// choice points of the run with no deviation: the count is exact for a run
// whose choice points do not depend on earlier choices, an estimate otherwise.
[[nodiscard]] std::vector<std::int64_t> runs_per_level(const VerifiedRun& base, const Bounds& bounds);

// One run by `script` (the default past its end) and `landings`, checked by
// the checker and the oracle. With extra faults, `scenario` is the one
// with_extra_faults made.
[[nodiscard]] VerifiedRun run_script(const scenario::Scenario& scenario, model::Fencing mode,
                                     std::vector<std::uint32_t> script, const Bounds& bounds,
                                     const runner::LineWatcher& watch = {}, Landings landings = {});

// The run of `script` as the search made it, its landings found again:
// each deviation's from the run with the deviations before it (one run
// more per deviation). What replay makes of a counterexample file.
[[nodiscard]] VerifiedRun rerun_script(const scenario::Scenario& scenario, model::Fencing mode,
                                       const std::vector<std::uint32_t>& script, const Bounds& bounds,
                                       const runner::LineWatcher& watch = {});

using ProgressWatcher = std::function<void(const Progress&)>;

// `scenario`: with_extra_faults' when bounds.extra_faults > 0. `jobs` threads; `progress` is called from the calling thread about twice a
// second. `base`: the run with no deviation, if already made (run_script with no script).
[[nodiscard]] Verification verify(const scenario::Scenario& scenario, const explore::ExploreGoal& goal,
                                  const Bounds& bounds, int jobs, const ProgressWatcher& progress = {},
                                  std::optional<VerifiedRun> base = std::nullopt);

}  // namespace locksim::verify
