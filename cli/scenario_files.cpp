#include "scenario_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/core.h>

#include "command.h"
#include "runner/scenario_run.h"
#include "scenario/did_you_mean.h"
#include "scenario/scenario_parser.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator{builtin_scenario_directory(), error}) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The scenario files the paths name, directories expanded in name order.
std::vector<std::string> scenario_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& argument : paths) {
    const std::string path = resolve_scenario_path(argument);
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::directory_iterator{path, error}) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") found.push_back(entry.path().string());
      }
      if (found.empty()) throw BadInput(fmt::format("{}: expected scenario files (*.json) in this directory, found none", path));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(path);
    }
  }
  return files;
}

// Thrown as a ScenarioError, so that `run` counts the file among its bad files.
void refuse_choices(const scenario::Scenario& scenario) {
  if (!scenario.choices) return;
  throw scenario::ScenarioError(fmt::format(
      "{}: /choices: a verify counterexample is one run, made by its choices, not a scenario to sample: "
      "replay it ({})",
      scenario.file, runner::replay_command(scenario.file)));
}

}  // namespace

std::string resolve_scenario_path(const std::string& argument) {
  std::error_code error;
  if (std::filesystem::exists(argument, error)) return argument;
  const std::filesystem::path name{argument};
  if (!name.has_parent_path()) {
    const std::string stem = name.extension() == ".json" ? name.stem().string() : argument;
    const std::filesystem::path builtin = std::filesystem::path{builtin_scenario_directory()} / (stem + ".json");
    if (std::filesystem::is_regular_file(builtin, error)) return builtin.string();
    const std::string nearest = scenario::nearest_candidate(stem, builtin_names());
    if (!nearest.empty()) {
      throw BadInput(fmt::format("{}: no such scenario file, directory or built-in scenario; did you mean {}?",
                                 argument, nearest));
    }
    throw BadInput(fmt::format(
        "{}: no such scenario file, directory or built-in scenario (`locksim list` shows the built-in ones)", argument));
  }
  throw BadInput(fmt::format("{}: no such scenario file or directory", argument));
}

std::vector<scenario::Scenario> load_scenarios(const std::vector<std::string>& paths, ChoiceFiles choice_files) {
  std::vector<scenario::Scenario> loaded;
  for (const std::string& file : scenario_files(paths)) {
    try {
      loaded.push_back(scenario::load_scenario_file(file));
      if (choice_files == ChoiceFiles::kRefused) refuse_choices(loaded.back());
      print_setting_warnings(loaded.back());
    } catch (const scenario::ScenarioError& error) {
      throw BadInput(error.what());
    }
  }
  return loaded;
}

LoadedScenarios load_scenarios_keeping_going(const std::vector<std::string>& paths) {
  LoadedScenarios loaded;
  for (const std::string& file : scenario_files(paths)) {
    try {
      loaded.scenarios.push_back(scenario::load_scenario_file(file));
      refuse_choices(loaded.scenarios.back());
      print_setting_warnings(loaded.scenarios.back());
    } catch (const scenario::ScenarioError& error) {
      loaded.bad_files.push_back({file, error.what()});
    }
  }
  return loaded;
}

void print_setting_warnings(const scenario::Scenario& scenario) {
  for (const scenario::SettingWarning& warning : scenario.warnings) {
    print_to_stderr("{}: warning: {}: {}\n", scenario.file, warning.pointer, warning.message);
  }
}

std::string builtin_scenario_directory() { return LOCKSIM_SCENARIO_DIR; }

}  // namespace locksim::cli
