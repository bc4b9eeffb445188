// `locksim explore SCENARIO [--from-seeds N] [--tests N] [--seed S] [--target KIND]
//   [--fencing off|on] [--out MINIMAL.json] [--json FILE]`: run the scenario's
// own seeds, then search its plan space, for one run that shows a violation (explore/explore_goal.h says which),
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

#include "command.h"
#include "explore/exploration.h"
#include "goal_flags.h"
#include "output_files.h"
#include "reports/exploration_text.h"
#include "scenario_files.h"
#include "text/terminal_escape.h"

namespace locksim::cli {
namespace {

// Prints to stdout with every character a terminal would act on escaped:
// the story, the faults and the paths carry the scenario's own names.
void say(const std::string& text) { fmt::print("{}", text::terminal_escaped_lines(text)); }

struct ExploreArguments {
  std::string path;
  int tests = 100;
  std::optional<int> from_seeds;
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

ExitCode explore_scenario(const ExploreArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: explore takes one scenario file", arguments.path));
  const scenario::Scenario& scenario = loaded.front();
  const explore::ExploreGoal goal = goal_from_flags(scenario, arguments.target, arguments.fencing);
  explore::SearchOptions options;
  options.seed = arguments.seed ? *arguments.seed : std::random_device{}();
  options.tests = arguments.tests;
  options.from_seeds = arguments.from_seeds;
  // An explicit --out is replaced as asked; the default name never replaces a file already there.
  const std::string out =
      arguments.out.empty() ? unused_file_name(file_name_part(scenario.name) + "-minimal.json") : arguments.out;
  check_writable("--out", out);
  check_writable("--json", arguments.json_file);

  say(reports::exploration_heading(scenario, goal, options));
  const explore::Exploration exploration = explore::explore(scenario, goal, options, out);
  if (exploration.finding) write_text(out, exploration.finding->minimal_file_text, "--out");
  say(reports::exploration_text(scenario, exploration, out));
  if (!arguments.json_file.empty()) write_text(arguments.json_file, reports::exploration_json(scenario, exploration, out), "--json");
  return exploration.as_expected() ? ExitCode::kOk : ExitCode::kExpectationFailed;
}

}  // namespace

void add_explore_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<ExploreArguments>();
  CLI::App* command = app.add_subcommand(
      "explore", "Search the scenario's plans for a run that shows a violation, and shrink it to a minimal plan");
  command->add_option("scenario", arguments->path, "The scenario file, or a built-in scenario's name (locksim list)")
      ->required();
  command->add_option("--from-seeds", arguments->from_seeds,
                      fmt::format("How many of the scenario's own seeds to run first, as `run` runs them, 0 to 100000 "
                                  "(default: the file's `seeds`, at least {}: enough to find a failure `run` shows "
                                  "in 1 seed of 100 with 99 % probability)",
                                  explore::kSeedsToFindOneInAHundred))
      ->check(CLI::Range(0, 100'000));
  command->add_option("--tests", arguments->tests, "How many plans to draw after the seeds, 0 to 100000 (default 100)")
      ->check(CLI::Range(0, 100'000));
  command->add_option("--seed", arguments->seed, "The search's seed (default: a fresh one, printed)");
  command->add_option("--target", arguments->target, "The violation kind to look for (default: from the file's expect)");
  command->add_option("--fencing", arguments->fencing, "on or off: the mode to explore in (default: from the expect)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--out", arguments->out, "Where to write the minimal plan (default: NAME-minimal.json)");
  command->add_option("--json", arguments->json_file, "Write what was found as JSON here");
  command->callback([arguments, &exit_code] { exit_code = explore_scenario(*arguments); });
}

}  // namespace locksim::cli
