#pragma once
// Reading scenario files (docs/scenario-format.md): JSON → a validated Scenario with
// every default filled in. Unknown keys are errors (usually typos, with a
// "did you mean" for near misses), and every error names the file, the JSON
// path and what was expected, e.g.
//   gc.json: /lock/lease: expected a duration like "45s", got -5

#include <stdexcept>
#include <string>
#include <string_view>

#include "scenario/scenario.h"
#include "text/terminal_escape.h"

namespace locksim::scenario {

// Bad user input in a scenario file; what() is the full message for the user.
// The message quotes what the user wrote, so it is escaped for the terminal
// here, once, wherever it is printed later.
class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(std::string_view message) : std::runtime_error{text::terminal_escaped(message)} {}
};

// Parses `text` as the contents of the scenario file `file`. Throws ScenarioError.
[[nodiscard]] Scenario parse_scenario(std::string_view text, const std::string& file);

// Reads and parses the file at `path`. Throws ScenarioError (also when unreadable).
[[nodiscard]] Scenario load_scenario_file(const std::string& path);

}  // namespace locksim::scenario
