#pragma once
// What a scenario's counts say about fencing, as sentences that state only
// what was measured: for each violation kind any mode showed, in how many of
// the runs it happened without fencing and with it ("stale_write: 134 of 200
// runs without fencing (67 %), none of 200 with it."). The teaching report's
// "what to take away" puts them under the scenario's own description.

#include <string>
#include <vector>

#include "runner/summary.h"

namespace locksim::reports {

// "134 of 200 runs (67%)", "none of 200 runs", "all 200 runs".
[[nodiscard]] std::string runs_share_text(std::int64_t runs_with, std::int64_t runs);

// One sentence per violation kind that happened in some mode, in the
// checker's order; one sentence saying nothing happened when none did.
[[nodiscard]] std::vector<std::string> fencing_lessons(const runner::ScenarioSummary& summary);

}  // namespace locksim::reports
