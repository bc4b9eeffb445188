#pragma once
// The run summary as JUnit XML (`run --junit`, `merge --junit`), which CI
// systems render: one <testsuite> per scenario, one <testcase> per fencing
// mode; a failed expectation, an inert mode or a determinism mismatch is a
// <failure> whose text ends with the command that replays the first failing
// seed. A mode no stated expectation applies to is <skipped> ("not judged"),
// or a <failure> when expectations are required. A shard (partial summary)
// fails no expectation; its suite's <system-out> says it is not judged. A
// scenario file that could not be loaded is a <testcase> of its own with an
// <error> carrying the message.

#include <string>
#include <vector>

#include "runner/summary.h"

namespace locksim::reports {

using runner::BadScenarioFile;

struct JunitOptions {
  std::vector<BadScenarioFile> bad_files;
  bool require_expectations = false;  // a mode that is not judged is a failure
};

[[nodiscard]] std::string summary_to_junit(const std::vector<runner::ScenarioSummary>& scenarios,
                                           const JunitOptions& options = {});

}  // namespace locksim::reports
