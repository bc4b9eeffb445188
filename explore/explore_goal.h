#pragma once
// What `locksim explore` looks for: a rule one run can be judged by (an
// `expect` over many seeds is not one), and what finding a run that shows it
// means. In order: the kind given by --target; else the kinds the file's
// hazard claims (">0") name — show the hazard, as small as it gets; else the
// kinds its per-run bounds ("==0") forbid — break the claimed safety; else
// harm with fencing on (stale_write, lost_update, duplicate_effect).

#include <optional>
#include <string>
#include <vector>

#include "checker/violation.h"
#include "model/options.h"
#include "scenario/scenario.h"

namespace locksim::explore {

enum class GoalMeaning {
  kShowHazard,   // the file says it happens: a run that shows it demonstrates the hazard
  kBreakSafety,  // the file (or fencing) says it does not: a run that shows it is a counterexample
};

struct ExploreGoal {
  model::Fencing mode = model::Fencing::kOff;
  std::vector<checker::ViolationKind> kinds;  // a run meets the goal if it shows any of them
  GoalMeaning meaning = GoalMeaning::kBreakSafety;
  std::string reason;  // for people: "the file expects stale_write >0 with fencing-off"
};

// "stale_write, double_holder": for messages.
[[nodiscard]] std::string kind_names(const std::vector<checker::ViolationKind>& kinds);

// `fencing`: --fencing, if given (the mode to explore in).
[[nodiscard]] ExploreGoal choose_goal(const scenario::Scenario& scenario, std::optional<checker::ViolationKind> target,
                                      std::optional<model::Fencing> fencing);

}  // namespace locksim::explore
