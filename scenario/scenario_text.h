#pragma once
// A scenario file's bytes, for the commands that write a scenario back
// changed (a saved plan, explore's minimal file, a sweep's points) or show
// it as it is (the report's settings): they start from the text as the user
// wrote it, not from the parsed scenario.

#include <string>

namespace locksim::scenario {

// Throws ScenarioError ("FILE: cannot read the file: why") when it cannot be read.
[[nodiscard]] std::string read_scenario_text(const std::string& path);

}  // namespace locksim::scenario
