#pragma once
// A scenario's settings in words, for the teaching report: one row per
// section of the file (service, lock, workers, workload, storage, network,
// clocks, each fault, what the file expects), each the file's own keys and
// values as compact text ("lease 10s", "work uniform 100ms–2s").
//
// From the file's text, not the parsed scenario, so the page says exactly
// what the file says; the few settings every page names (the service, the
// lease, the workers and their work, fencing) are added with "(default)"
// from the key reference when the file leaves them out.

#include <string>
#include <string_view>
#include <vector>

namespace locksim::reports {

struct ParameterRow {
  std::string section;  // "lock", "faults[0]", "expect"
  std::string text;     // "lease 10s"
};

// Requires `file_text` to be a scenario file the parser accepted.
[[nodiscard]] std::vector<ParameterRow> scenario_parameters(std::string_view file_text);

}  // namespace locksim::reports
