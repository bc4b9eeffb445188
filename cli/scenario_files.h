#pragma once
// Turning `run`/`report` arguments into scenarios: files as given, and the
// *.json files of a directory in name order. Bad input becomes BadInput.

#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace locksim::cli {

// Requires every path to exist; a directory must hold at least one .json.
[[nodiscard]] std::vector<scenarios::Scenario> load_scenarios(const std::vector<std::string>& paths);

// The built-in scenario library's directory (scenarios/ in the source tree).
[[nodiscard]] std::string builtin_scenario_directory();

}  // namespace locksim::cli
