#pragma once
// A plan in words, one line per fault and one for the sizes of an explored
// case: what `locksim explore` prints of its minimal plan and what the
// teaching report shows beside the pictured run.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "explore/plan_space.h"
#include "scenario/plan.h"

namespace locksim::reports {

// "faults[0] pause worker-1 0s after its acquire.ok #1, for 12s"
[[nodiscard]] std::string planned_fault_text(const scenario::PlannedFault& fault);

// "workers begin: worker-2 at 400.434369ms, worker-1 at 805.1ms": in the
// order they first ask (the first holder decides many runs' story); "" when
// every worker begins at t = 0.
[[nodiscard]] std::string worker_starts_text(const scenario::Plan& plan);

// The plan of a run that ended at `run_end_ns`, one line per fault, then the
// workers' starts. A fault planned for after the end (a rate's later
// occurrences) never fired: such faults are counted in a last line, not
// listed as the run's faults.
[[nodiscard]] std::vector<std::string> plan_lines(const scenario::Plan& plan, std::int64_t run_end_ns);

// "2 workers, 1 job each, 1 fault, network delay 1us, work 100ms"
[[nodiscard]] std::string case_sizes_text(const explore::ExploreCase& point, std::size_t faults);

}  // namespace locksim::reports
