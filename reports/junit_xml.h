#pragma once
// The run summary as JUnit XML (`run --junit`, `merge --junit`), which CI
// systems render: one <testsuite> per scenario, one <testcase> per fencing
// mode; a failed expectation, an inert mode or a determinism mismatch is a
// <failure> whose text ends with the command that replays the first failing
// seed. A shard (partial summary) fails no expectation; its suite's
// <system-out> says it is not judged.

#include <string>
#include <vector>

#include "runner/summary.h"

namespace locksim::reports {

[[nodiscard]] std::string summary_to_junit(const std::vector<runner::ScenarioSummary>& scenarios);

}  // namespace locksim::reports
