#pragma once
// The run summary as JSON (spec/cli.md, `--json`), both ways: written by
// `run`, read back by `merge` to add up shard summaries.
//
// Extensions to the spec's shape: per scenario `inert` (why it proved
// nothing, if so) and `recheck` ({"seeds", "failed": [seed…]}).

#include <stdexcept>
#include <string>
#include <vector>

#include "runner/scenario_run.h"

namespace locksim::reports {

[[nodiscard]] std::string summary_to_json(const std::vector<runner::ScenarioSummary>& scenarios);

// Bad input in a summary file; what() names the file and JSON path.
class SummaryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a summary written by summary_to_json. Throws SummaryError.
[[nodiscard]] std::vector<runner::ScenarioSummary> summary_from_json(std::string_view text, const std::string& file);

// Adds `more` into `total`, scenario by scenario (matched by name) and mode by
// mode, then judges the expectations and inertness again on the totals.
void merge_summaries(std::vector<runner::ScenarioSummary>& total, const std::vector<runner::ScenarioSummary>& more);

}  // namespace locksim::reports
