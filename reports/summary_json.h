#pragma once
// The run summary as JSON (docs/cli.md, `--json`), both ways: written by
// `run`, read back by `merge`, which adds shard summaries up with
// runner::merge_summaries.
//
// Extensions to the spec's shape: per scenario `inert` (why it proved
// nothing, if so), `inert_rules` and `recheck` ({"seeds", "failed": [seed…]});
// per mode `runs_with` (per violation kind and run outcome, the runs with at
// least one), `stopped_short_example` ({"seed", "why", "blocked", "replay"}
// or null) and `stats.virtual_ns`; per expectation `share_of_runs` (then
// `value` is a percentage and `actual` counts runs), `runs`, `stated` (false:
// the implicit "stopped_short ==0"), `text` and `judged`.
//
// Sharding: the top level's `build` (version, compiler, build type); per
// scenario `content_hash` (16 hex digits, FNV-1a of the scenario file's
// bytes), `shard` ("K/N"; "0/1" for a whole run) and `partial` (true on a
// shard: its expectations have `judged` false and `ok` null, it is never
// inert, and its `ok` says only that the determinism self-check held).

#include <stdexcept>
#include <string>
#include <vector>

#include "runner/summary.h"

namespace locksim::reports {

// `load_errors`: the scenario files the run could not load (then `ok` is
// false); `run_flags`: the flags that change what is run or judged, which
// `merge` requires to be the same in every shard.
[[nodiscard]] std::string summary_to_json(const std::vector<runner::ScenarioSummary>& scenarios,
                                          const std::vector<runner::BadScenarioFile>& load_errors = {},
                                          const std::map<std::string, std::string>& run_flags = {});

// Bad input in a summary file; what() names the file and JSON path.
class SummaryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a summary written by summary_to_json. Throws SummaryError.
[[nodiscard]] std::vector<runner::ScenarioSummary> summary_from_json(std::string_view text, const std::string& file);

// The same, with the top level's version and build, as `merge` checks them.
[[nodiscard]] runner::SummaryInput summary_input_from_json(std::string_view text, const std::string& file);

}  // namespace locksim::reports
