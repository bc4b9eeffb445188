#pragma once
// A counterexample in words: the lines of a run's history that tell what
// went wrong — who acquired, which fault hit whom and when, which lease
// expired, the evidence of the violation — then the checker's own line for
// it ("stale_write at 12.437s: storage accepted qty=1 from worker-1 …").

#include <string>
#include <vector>

#include "checker/violation.h"

namespace locksim::reports {

// `history`: the run's JSONL lines; `violation`: the one to tell.
[[nodiscard]] std::vector<std::string> counterexample_story(const std::vector<std::string>& history,
                                                            const checker::Violation& violation);

}  // namespace locksim::reports
