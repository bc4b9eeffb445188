// `locksim explore SCENARIO [--tests N] [--seed S] [--target KIND] [--fencing off|on]
//   [--out MINIMAL.json] [--json FILE]`: search the scenario's own plan space
// for one run that shows a violation (explore/explore_goal.h says which),
// shrink it to a minimal plan, tell it in words with its critical event, and
// write it as a scenario file that `run` and `replay` accept.
//
// Exit: 0 when the hazard the file claims was shown, or no counterexample to
// a safety rule was found; 1 when a safety rule was broken, or the claimed
// hazard was not shown in N tests; 2 bad input; 3 the minimal file does not
// replay to the same violation, or the checker and the oracle disagree.

#include <fstream>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "explore/exploration.h"
#include "output_files.h"
#include "reports/plan_text.h"
#include "runner/scenario_run.h"
#include "scenario_files.h"
#include "scenario/fencing_modes.h"
#include "scenario/saved_plan.h"
#include "text/terminal_escape.h"
#include "scenario/scenario_parser.h"

namespace locksim::cli {
namespace {

// Prints to stdout with every character a terminal would act on escaped:
// the story, the faults and the paths carry the scenario's own names.
template <typename... Arguments>
void say(fmt::format_string<Arguments...> format, Arguments&&... arguments) {
  fmt::print("{}", text::terminal_escaped_lines(fmt::format(format, std::forward<Arguments>(arguments)...)));
}

using checker::ViolationKind;

struct ExploreArguments {
  std::string path;
  int tests = 100;
  std::optional<std::uint64_t> seed;
  std::string target;
  std::string fencing;
  std::string out;
  std::string json_file;
};

void write_text(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream file{path, std::ios::binary};
  file << text;
  if (!file) throw BadInput(fmt::format("{} {}: cannot write the file", flag, path));
}

std::optional<ViolationKind> target_kind(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (const ViolationKind kind : checker::kAllViolationKinds) {
    if (checker::violation_kind_name(kind) == name) return kind;
  }
  const std::vector<ViolationKind> all(checker::kAllViolationKinds.begin(), checker::kAllViolationKinds.end());
  throw BadInput(fmt::format("--target {}: not a violation kind; expected one of {}", name, explore::kind_names(all)));
}

nlohmann::ordered_json critical_json(const explore::CriticalEvent& event) {
  const auto nanos = [](const std::optional<sim::Duration>& value) {
    return value ? nlohmann::ordered_json(value->count_ns()) : nlohmann::ordered_json(nullptr);
  };
  if (!event.setting.empty()) {
    return {{"setting", event.setting},    {"needed", event.needed},
            {"length_ns", nanos(event.length)}, {"threshold_ns", nanos(event.threshold)},
            {"statement", event.statement}};
  }
  return {{"fault", event.fault},        {"kind", scenario::fault_kind_name(event.kind)},
          {"target", event.target},      {"needed", event.needed},
          {"length", event.length_name}, {"length_ns", nanos(event.length)},
          {"threshold_ns", nanos(event.threshold)}, {"lease_ns", nanos(event.lease)},
          {"lease_left_ns", nanos(event.lease_left)}, {"statement", event.statement}};
}

// Prints the counterexample and returns what --json says of it.
nlohmann::ordered_json report_counterexample(const scenario::Scenario& scenario, const explore::Finding& found,
                                             const explore::ExploreGoal& goal, const std::string& out) {
  const explore::Counterexample& found_case = found.counterexample;
  const std::string kind{checker::violation_kind_name(found_case.kind)};
  const std::size_t faults_found = explore::runnable(scenario, found_case.found).plan.faults.size();
  say("found {} at test {}; shrunk in {} steps ({} runs{}):\n", kind, found_case.test, found_case.shrink_steps,
             found_case.shrink_runs, found_case.shrink_cut_short ? ", cut short" : "");
  say("  from {}\n  to   {}, seed {}\n", reports::case_sizes_text(found_case.found, faults_found),
             reports::case_sizes_text(found_case.minimal, found.minimal.plan.faults.size()), found_case.minimal.seed);
  nlohmann::ordered_json faults = nlohmann::ordered_json::array();
  for (const scenario::PlannedFault& fault : found.minimal.plan.faults) {
    say("  {}\n", reports::planned_fault_text(fault));
    faults.push_back(reports::planned_fault_text(fault));
  }
  say("what happened:\n");
  for (const std::string& line : found.story) say("  {}\n", line);
  nlohmann::ordered_json critical = nlohmann::ordered_json::array();
  for (const explore::CriticalEvent& event : found.critical) {
    say("critical event: {}\n", event.statement);
    critical.push_back(critical_json(event));
  }
  say("minimal plan written to {}\n  {}\n", out,
             runner::replay_command(scenario::parse_scenario(found.minimal_file_text, out), found_case.minimal.seed,
                                    goal.mode));
  return {{"kind", kind},
          {"test", found_case.test},
          {"shrink_steps", found_case.shrink_steps},
          {"shrink_runs", found_case.shrink_runs},
          {"run_seed", found_case.minimal.seed},
          {"workers", found_case.minimal.workers},
          {"jobs", found_case.minimal.jobs},
          {"faults", faults},
          {"story", found.story},
          {"critical_events", critical},
          {"minimal_file", out}};
}

ExitCode explore_scenario(const ExploreArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: explore takes one scenario file", arguments.path));
  const scenario::Scenario& scenario = loaded.front();
  const std::optional<model::Fencing> fencing =
      arguments.fencing.empty() ? std::nullopt
                                : std::optional{scenario::fencing_modes_from_switch(arguments.fencing)->front()};
  const explore::ExploreGoal goal = explore::choose_goal(scenario, target_kind(arguments.target), fencing);
  explore::SearchOptions options;
  options.seed = arguments.seed ? *arguments.seed : std::random_device{}();
  options.tests = arguments.tests;
  // An explicit --out is replaced as asked; the default name never replaces a file already there.
  const std::string out =
      arguments.out.empty() ? unused_file_name(file_name_part(scenario.name) + "-minimal.json") : arguments.out;
  check_writable("--out", out);
  check_writable("--json", arguments.json_file);

  say("explore {}: seed {}, up to {} tests, {}\n", scenario.name, options.seed, options.tests,
             scenario::fencing_mode_name(goal.mode));
  say("looking for {}: {}\n", explore::kind_names(goal.kinds), goal.reason);
  const explore::Exploration exploration = explore::explore(scenario, goal, options, out);

  nlohmann::ordered_json report{{"scenario", scenario.name},
                                {"file", scenario.file},
                                {"seed", options.seed},
                                {"mode", scenario::fencing_mode_name(goal.mode)},
                                {"looking_for", explore::kind_names(goal.kinds)},
                                {"reason", goal.reason},
                                {"tests_run", exploration.tests_run},
                                {"found", exploration.finding.has_value()}};
  if (exploration.finding) {
    write_text(out, exploration.finding->minimal_file_text, "--out");
    report["counterexample"] = report_counterexample(scenario, *exploration.finding, goal, out);
  } else {
    say("{} tests passed: no run showed {} ({} simulations)\n", exploration.tests_run,
               explore::kind_names(goal.kinds), exploration.simulations);
    if (goal.meaning == explore::GoalMeaning::kShowHazard) say("the hazard the file claims was not shown\n");
  }
  report["simulations"] = exploration.simulations;
  if (!arguments.json_file.empty()) write_text(arguments.json_file, report.dump(2) + "\n", "--json");
  return exploration.as_expected() ? ExitCode::kOk : ExitCode::kExpectationFailed;
}

}  // namespace

void add_explore_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<ExploreArguments>();
  CLI::App* command = app.add_subcommand(
      "explore", "Search the scenario's plans for a run that shows a violation, and shrink it to a minimal plan");
  command->add_option("scenario", arguments->path, "The scenario file, or a built-in scenario's name (locksim list)")
      ->required();
  command->add_option("--tests", arguments->tests, "How many plans to try, 1 to 100000 (default 100)")
      ->check(CLI::Range(1, 100'000));
  command->add_option("--seed", arguments->seed, "The search's seed (default: a fresh one, printed)");
  command->add_option("--target", arguments->target, "The violation kind to look for (default: from the file's expect)");
  command->add_option("--fencing", arguments->fencing, "on or off: the mode to explore in (default: from the expect)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--out", arguments->out, "Where to write the minimal plan (default: NAME-minimal.json)");
  command->add_option("--json", arguments->json_file, "Write what was found as JSON here");
  command->callback([arguments, &exit_code] { exit_code = explore_scenario(*arguments); });
}

}  // namespace locksim::cli
