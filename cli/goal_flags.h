#pragma once
// The goal `explore` and `verify` look for, from their shared --target and
// --fencing flags (explore/explore_goal.h says how it is chosen without them).

#include <string>

#include "explore/explore_goal.h"
#include "scenario/scenario.h"

namespace locksim::cli {

// `target`: a violation kind's name or ""; `fencing`: "on", "off" or "".
// Throws BadInput for a name that is no violation kind.
[[nodiscard]] explore::ExploreGoal goal_from_flags(const scenario::Scenario& scenario, const std::string& target,
                                                   const std::string& fencing);

}  // namespace locksim::cli
