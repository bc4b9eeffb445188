// `locksim verify SCENARIO [--deviations K] [--anchors N] [--faults F] [--domain standard|wide]
//   [--target KIND] [--fencing on|off] [--jobs J] [--limit RUNS] [--yes]
//   [--out FILE.json] [--json FILE] [--quiet]`: every run of the scenario
// within the bounds, made and checked (verify/verification.h): either the
// statement that none shows the goal's violations, or the run that does with
// the fewest deviations, told in words and written as a replayable file.
//
// Exit: as explore's — 0 when the hazard the file claims was shown, or no run
// within the bounds breaks the safety rule; 1 otherwise; 2 bad input (or a
// bound implying more runs than --limit, without --yes); 3 the checker and
// the oracle disagree.

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "command.h"
#include "goal_flags.h"
#include "output_files.h"
#include "reports/verification_text.h"
#include "scenario_files.h"
#include "scenario/scenario_text.h"
#include "text/terminal_escape.h"
#include "verify/counterexample_file.h"
#include "verify/verification.h"

namespace locksim::cli {
namespace {

void say(const std::string& text) { fmt::print("{}", text::terminal_escaped_lines(text)); }

struct VerifyArguments {
  std::string path;
  int deviations = 2;
  int anchors = 2;
  int faults = 0;
  std::string domain = "standard";
  std::string target;
  std::string fencing;
  int jobs = 0;
  std::int64_t limit = 2'000'000;
  bool yes = false;
  std::string out;
  std::string json_file;
  bool quiet = false;
};

ExitCode verify_scenario(const VerifyArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: verify takes one scenario file", arguments.path));
  const std::optional<scenario::Scenario> extended = verify::with_extra_faults(loaded.front(), arguments.faults);
  if (!extended) {
    throw BadInput(fmt::format("--faults {}: {} has no pause and no crash to add more of", arguments.faults,
                               arguments.path));
  }
  const scenario::Scenario& scenario = *extended;
  const explore::ExploreGoal goal = goal_from_flags(scenario, arguments.target, arguments.fencing);
  verify::Bounds bounds;
  bounds.deviations = arguments.deviations;
  bounds.anchors = arguments.anchors;
  bounds.extra_faults = arguments.faults;
  bounds.domain.quartiles = arguments.domain == "wide";
  const std::string out = arguments.out.empty()
                              ? unused_file_name(file_name_part(scenario.name) + "-counterexample.json")
                              : arguments.out;
  check_writable("--out", out);
  check_writable("--json", arguments.json_file);

  verify::VerifiedRun base = verify::run_script(scenario, goal.mode, {}, bounds);
  const std::vector<std::int64_t> per_level = verify::runs_per_level(base, bounds);
  std::int64_t expected = 0;
  for (const std::int64_t count : per_level) expected += count;
  say(reports::verification_heading(scenario, goal, bounds, base.points.size(), per_level));
  if (expected > arguments.limit && !arguments.yes) {
    throw BadInput(fmt::format("about {} runs is more than --limit {}: lower --deviations or --anchors, or pass --yes",
                               expected, arguments.limit));
  }

  const auto started = std::chrono::steady_clock::now();
  verify::ProgressWatcher progress;
  if (!arguments.quiet) {
    progress = [started](const verify::Progress& now) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      fmt::print(stderr, "{}\n", reports::verification_progress(now, seconds));
    };
  }
  const int jobs = arguments.jobs > 0 ? arguments.jobs : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const verify::Verification verification = verify::verify(scenario, goal, bounds, jobs, progress, std::move(base));

  std::vector<std::string> history;
  if (verification.counterexample) {
    // Made again with its history, for the story; the file replays it.
    static_cast<void>(verify::run_script(
        scenario, goal.mode, verification.counterexample->script, bounds,
        [&history](std::string_view line, const sim::Simulation&) { history.emplace_back(line); },
        verification.counterexample->landings));
    write_output_file(out, verify::counterexample_file_json(scenario::read_scenario_text(scenario.file), scenario,
                                                            bounds, *verification.counterexample));
  }
  say(reports::verification_text(verification, history, out));
  if (!arguments.json_file.empty()) {
    write_output_file(arguments.json_file, reports::verification_json(scenario, verification, out));
  }
  const bool found = verification.counterexample.has_value();
  const bool as_expected = goal.meaning == explore::GoalMeaning::kShowHazard ? found : !found;
  return as_expected ? ExitCode::kOk : ExitCode::kExpectationFailed;
}

}  // namespace

void add_verify_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<VerifyArguments>();
  CLI::App* command = app.add_subcommand(
      "verify", "Make and check every run within stated bounds: a bounded proof, or the run with the fewest deviations");
  command->add_option("scenario", arguments->path, "The scenario file, or a built-in scenario's name (locksim list)")
      ->required();
  command->add_option("--deviations", arguments->deviations,
                      "The most draws that may take a value other than their default, 0 to 4 (default 2)")
      ->check(CLI::Range(0, 4));
  command->add_option("--anchors", arguments->anchors,
                      "A fault may also strike at its target's first N events of each anchor kind, 0 to 10 (default 2)")
      ->check(CLI::Range(0, 10));
  command->add_option("--faults", arguments->faults,
                      "Up to F more faults like the file's first pause (or crash), on any node, at any anchor, 0 to 4 "
                      "(default 0)")
      ->check(CLI::Range(0, 4));
  command->add_option("--domain", arguments->domain, "standard, or wide: also each distribution's quartiles")
      ->check(CLI::IsMember({"standard", "wide"}));
  command->add_option("--target", arguments->target, "The violation kind to look for (default: from the file's expect)");
  command->add_option("--fencing", arguments->fencing, "on or off: the mode to verify (default: from the expect)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--jobs", arguments->jobs, "Threads (default: one per core)")->check(CLI::Range(1, 256));
  command->add_option("--limit", arguments->limit, "Refuse a bound implying more runs than this, without --yes (default 2000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000'000}));
  command->add_flag("--yes", arguments->yes, "Run however many runs the bounds imply");
  command->add_option("--out", arguments->out, "Where to write a counterexample (default: NAME-counterexample.json)");
  command->add_option("--json", arguments->json_file, "Write the result as JSON here");
  command->add_flag("--quiet", arguments->quiet, "No progress lines on stderr");
  command->callback([arguments, &exit_code] { exit_code = verify_scenario(*arguments); });
}

}  // namespace locksim::cli
