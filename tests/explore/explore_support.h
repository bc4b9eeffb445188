#pragma once
// Built-in scenarios for explore's tests, read as `locksim` reads them.

#include <fstream>
#include <sstream>
#include <string>

#include "scenario/scenario_parser.h"

namespace locksim::explore::testing {

inline std::string builtin_path(const std::string& name) {
  return std::string{LOCKSIM_SCENARIO_DIR} + "/" + name + ".json";
}

inline std::string builtin_text(const std::string& name) {
  std::ifstream file{builtin_path(name), std::ios::binary};
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

inline scenario::Scenario builtin(const std::string& name) { return scenario::load_scenario_file(builtin_path(name)); }

}  // namespace locksim::explore::testing
