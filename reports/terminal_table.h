#pragma once
// The run summary for people: one table row per scenario and fencing mode
// with the violation totals, then for every scenario that failed what failed
// and the exact command that replays its first failing seed.

#include <string>
#include <vector>

#include "runner/scenario_run.h"

namespace locksim::reports {

[[nodiscard]] std::string summary_to_table(const std::vector<runner::ScenarioSummary>& scenarios);

}  // namespace locksim::reports
