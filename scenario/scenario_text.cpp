#include "scenario/scenario_text.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "scenario/scenario_parser.h"

namespace locksim::scenario {

std::string read_scenario_text(const std::string& path) {
  errno = 0;
  std::ifstream input{path, std::ios::binary};
  std::ostringstream contents;
  if (input) contents << input.rdbuf();
  if (!input || input.bad()) {
    throw ScenarioError(fmt::format("{}: cannot read the file: {}", path, std::strerror(errno != 0 ? errno : EIO)));
  }
  return contents.str();
}

}  // namespace locksim::scenario
