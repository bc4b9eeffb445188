#pragma once
// The minimal counterexample as a scenario file: the saved-plan format
// (scenarios/saved_plan.h: every fault explicit, the seed as first_seed) with
// the explored sizes and constants written in (workers.count, workload jobs,
// network.delay, workers.work), storage.fencing set to the explored mode,
// and an `expect` that states what was found — `KIND ">0"` for a hazard the
// file claims (run says "reproduced"), the broken `KIND "==0"` for a safety
// counterexample (run fails the same way), and `stopped_short ">0"` when the
// minimal run stopped short. probes_required is dropped: the file states the
// violation itself.

#include <string>
#include <string_view>

#include "checker/violation.h"
#include "explore/explore_goal.h"
#include "explore/plan_space.h"

namespace locksim::explore {

struct MinimalScenarioText {
  std::string_view original;  // the explored file's JSON text
  std::string found_by;       // how it was found, for the description: "locksim explore --seed 1, test 3"
  std::string summary;        // one sentence on what it shows
  // The minimal run hit its time or event limit with work left (a lock
  // nobody can take, H10): the expect says so, since `run` otherwise
  // expects every run to finish.
  bool stopped_short = false;
};

[[nodiscard]] std::string minimal_scenario_json(const MinimalScenarioText& text, const RunnableCase& minimal,
                                                const ExploreGoal& goal, checker::ViolationKind kind);

}  // namespace locksim::explore
