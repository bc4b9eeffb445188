// `locksim list`: the built-in scenarios with their one-line descriptions.

#include <fmt/core.h>

#include "command.h"
#include "scenario_files.h"

namespace locksim::cli {
namespace {

// The first sentence of a description.
std::string first_sentence(const std::string& description) {
  const std::size_t end = description.find(". ");
  return end == std::string::npos ? description : description.substr(0, end + 1);
}

ExitCode list() {
  const std::vector<scenario::Scenario> scenarios = load_scenarios({builtin_scenario_directory()});
  std::size_t width = 0;
  for (const scenario::Scenario& scenario : scenarios) width = std::max(width, scenario.name.size());
  for (const scenario::Scenario& scenario : scenarios) {
    fmt::print("{:<{}}  {}\n", scenario.name, width, first_sentence(scenario.description));
  }
  return ExitCode::kOk;
}

}  // namespace

void add_list_command(CLI::App& app, ExitCode& exit_code) {
  CLI::App* command = app.add_subcommand("list", "List the built-in scenarios");
  command->callback([&exit_code] { exit_code = list(); });
}

}  // namespace locksim::cli
