#pragma once
// Turning `run`/`report` arguments into scenarios: files as given, and the
// *.json files of a directory in name order. Bad input becomes BadInput.

#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace locksim::cli {

// Requires every path to exist; a directory must hold at least one .json.
// Prints each scenario's setting warnings to stderr once (print_setting_warnings).
[[nodiscard]] std::vector<scenarios::Scenario> load_scenarios(const std::vector<std::string>& paths);

// Prints "FILE: warning: /JSON/POINTER: message" to stderr for each of the
// scenario's setting warnings (scenarios/setting_warnings.h).
void print_setting_warnings(const scenarios::Scenario& scenario);

// The built-in scenario library's directory (scenarios/ in the source tree).
[[nodiscard]] std::string builtin_scenario_directory();

}  // namespace locksim::cli
