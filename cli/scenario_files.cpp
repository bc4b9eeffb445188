#include "scenario_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/core.h>

#include "command.h"
#include "scenarios/scenario_parser.h"

namespace locksim::cli {

std::vector<scenarios::Scenario> load_scenarios(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::directory_iterator{path, error}) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") found.push_back(entry.path().string());
      }
      if (found.empty()) throw BadInput(fmt::format("{}: expected scenario files (*.json) in this directory, found none", path));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(path, error)) {
      files.push_back(path);
    } else {
      throw BadInput(fmt::format("{}: no such scenario file or directory", path));
    }
  }
  std::vector<scenarios::Scenario> loaded;
  for (const std::string& file : files) {
    try {
      loaded.push_back(scenarios::load_scenario_file(file));
      print_setting_warnings(loaded.back());
    } catch (const scenarios::ScenarioError& error) {
      throw BadInput(error.what());
    }
  }
  return loaded;
}

void print_setting_warnings(const scenarios::Scenario& scenario) {
  for (const scenarios::SettingWarning& warning : scenario.warnings) {
    fmt::print(stderr, "{}: warning: {}: {}\n", scenario.file, warning.pointer, warning.message);
  }
}

std::string builtin_scenario_directory() { return LOCKSIM_SCENARIO_DIR; }

}  // namespace locksim::cli
