#pragma once
// Turning `run`/`replay` arguments into scenarios: files as given, the
// *.json files of a directory in name order, and the built-in scenarios by
// the names `locksim list` shows. Bad input becomes BadInput.

#include <cstdint>
#include <string>
#include <vector>

#include "reports/junit_xml.h"
#include "scenario/scenario.h"

namespace locksim::cli {

// The path `argument` names: itself if it exists (a path that exists always
// wins), else the built-in scenario of that name ("h01-gc-pause-past-lease",
// with or without ".json"). Throws BadInput for anything else, with the
// nearest built-in name if it is a near miss.
[[nodiscard]] std::string resolve_scenario_path(const std::string& argument);

// Whether a command takes a `locksim verify` counterexample (a file with
// `choices`, one run made by its choices): replay does; the others, which
// sample seeds or search plans, would silently ignore its choices, so they refuse it.
enum class ChoiceFiles : std::uint8_t { kRefused, kAccepted };

// Requires every path to exist; a directory must hold at least one .json.
// Prints each scenario's setting warnings to stderr once (print_setting_warnings).
[[nodiscard]] std::vector<scenario::Scenario> load_scenarios(const std::vector<std::string>& paths,
                                                             ChoiceFiles choice_files = ChoiceFiles::kRefused);

// What `run` loaded: the valid scenarios, and every file that was not one
// (so one bad file in a suite does not stop the others from running).
struct LoadedScenarios {
  std::vector<scenario::Scenario> scenarios;
  std::vector<reports::BadScenarioFile> bad_files;
};

// Like load_scenarios, but a file that fails to parse is collected in
// bad_files instead of thrown. A path that does not exist still throws.
[[nodiscard]] LoadedScenarios load_scenarios_keeping_going(const std::vector<std::string>& paths);

// Prints "FILE: warning: /JSON/POINTER: message" to stderr for each of the
// scenario's setting warnings (scenarios/setting_warnings.h).
void print_setting_warnings(const scenario::Scenario& scenario);

// The built-in scenario library's directory (scenarios/ in the source tree).
[[nodiscard]] std::string builtin_scenario_directory();

}  // namespace locksim::cli
