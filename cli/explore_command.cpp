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
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "explore/case_runner.h"
#include "explore/critical_event.h"
#include "explore/explore_goal.h"
#include "explore/minimal_scenario.h"
#include "explore/search.h"
#include "explore/story.h"
#include "runner/scenario_run.h"
#include "scenario_files.h"
#include "scenarios/fencing_modes.h"
#include "scenarios/saved_plan.h"
#include "scenarios/scenario_parser.h"
#include "sim/duration_text.h"

namespace locksim::cli {
namespace {

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

std::string read_text(const std::string& path) {
  std::ifstream file{path, std::ios::binary};
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

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

std::string trigger_text(const scenarios::PlannedFault& fault) {
  if (const auto* at = std::get_if<scenarios::AtTime>(&fault.trigger)) {
    return fmt::format("at {}", sim::format_duration(at->at));
  }
  constexpr std::array kWhen{"acquire.ok", "write.invoke", "lease.grant", "acquire.invoke", "effect.invoke"};
  const auto& on_event = std::get<scenarios::OnEvent>(fault.trigger);
  return fmt::format("{} after its {} #{}", sim::format_duration(on_event.delay),
                     kWhen[static_cast<std::size_t>(on_event.when)], on_event.nth);
}

std::string fault_text(const scenarios::PlannedFault& fault) {
  std::string text = fmt::format("faults[{}] {} ", fault.index, scenarios::fault_kind_name(fault.kind));
  if (!fault.target.empty()) text += fault.target + " ";
  text += trigger_text(fault);
  switch (fault.kind) {
    case scenarios::FaultKind::kPause:
    case scenarios::FaultKind::kPartition:
    case scenarios::FaultKind::kStarveRenewal: text += fmt::format(", for {}", sim::format_duration(fault.length)); break;
    case scenarios::FaultKind::kClockJump: text += fmt::format(", by {}", sim::format_duration(fault.by)); break;
    case scenarios::FaultKind::kDelaySpike:
      text += fmt::format(", {} extra for {}", sim::format_duration(fault.extra), sim::format_duration(fault.length));
      break;
    default: break;
  }
  return text;
}

std::string sizes_text(const explore::ExploreCase& point, std::size_t faults) {
  std::string text = fmt::format("{} worker{}, {} job{} each, {} fault{}", point.workers, point.workers == 1 ? "" : "s",
                                 point.jobs, point.jobs == 1 ? "" : "s", faults, faults == 1 ? "" : "s");
  if (point.network_delay_us) text += fmt::format(", network delay {}", sim::format_duration(sim::Duration::microseconds(*point.network_delay_us)));
  if (point.work_us) text += fmt::format(", work {}", sim::format_duration(sim::Duration::microseconds(*point.work_us)));
  return text;
}

// The minimal file, read back and run as `run`/`replay` would: it must show
// the same violation, or explore has written something false.
void require_replays(const std::string& text, const std::string& path, const explore::ExploreGoal& goal,
                     ViolationKind kind) {
  const scenarios::Scenario saved = scenarios::parse_scenario(text, path);
  const runner::SeedRun run = runner::run_seed(saved, *saved.first_seed, goal.mode);
  if (run.verdict.violation_count(kind).value_or(0) == 0) {
    throw std::runtime_error(fmt::format("{}: the minimal plan does not replay to {} (a bug in locksim explore)", path,
                                         checker::violation_kind_name(kind)));
  }
}

struct Found {
  explore::RunnableCase minimal;
  std::vector<std::string> story;
  std::vector<explore::CriticalEvent> critical;
};

Found describe(const scenarios::Scenario& scenario, explore::CaseRunner& case_runner,
               const explore::Counterexample& counterexample) {
  Found found{explore::runnable(scenario, counterexample.minimal), {}, {}};
  std::vector<std::string> history;
  const runner::SeedRun run = case_runner.run_watched(found.minimal, history);
  const auto first = std::ranges::find_if(run.verdict.violations, [&](const checker::Violation& violation) {
    return violation.kind == counterexample.kind;
  });
  if (first == run.verdict.violations.end()) throw std::runtime_error("the minimal case shows no violation when run again");
  found.story = explore::story(history, *first);
  found.critical = explore::critical_events(found.minimal, case_runner, counterexample.kind, history);
  return found;
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
  return {{"fault", event.fault},        {"kind", scenarios::fault_kind_name(event.kind)},
          {"target", event.target},      {"needed", event.needed},
          {"length", event.length_name}, {"length_ns", nanos(event.length)},
          {"threshold_ns", nanos(event.threshold)}, {"lease_ns", nanos(event.lease)},
          {"lease_left_ns", nanos(event.lease_left)}, {"statement", event.statement}};
}

// Prints the counterexample, writes and checks the minimal file, and returns
// what --json says of it.
nlohmann::ordered_json report_counterexample(const scenarios::Scenario& scenario, const explore::ExploreGoal& goal,
                                             explore::CaseRunner& case_runner, const explore::Counterexample& found_case,
                                             std::uint64_t seed, const std::string& out) {
  const Found found = describe(scenario, case_runner, found_case);
  const std::string kind{checker::violation_kind_name(found_case.kind)};
  const std::string text = explore::minimal_scenario_json(
      {read_text(scenario.file), fmt::format("locksim explore --seed {} (test {})", seed, found_case.test),
       found.story.back()},
      found.minimal, goal, found_case.kind);
  write_text(out, text, "--out");
  require_replays(text, out, goal, found_case.kind);

  const std::size_t faults_found = explore::runnable(scenario, found_case.found).plan.faults.size();
  fmt::print("found {} at test {}; shrunk in {} steps ({} runs{}):\n", kind, found_case.test, found_case.shrink_steps,
             found_case.shrink_runs, found_case.shrink_cut_short ? ", cut short" : "");
  fmt::print("  from {}\n  to   {}, seed {}\n", sizes_text(found_case.found, faults_found),
             sizes_text(found_case.minimal, found.minimal.plan.faults.size()), found_case.minimal.seed);
  nlohmann::ordered_json faults = nlohmann::ordered_json::array();
  for (const scenarios::PlannedFault& fault : found.minimal.plan.faults) {
    fmt::print("  {}\n", fault_text(fault));
    faults.push_back(fault_text(fault));
  }
  fmt::print("what happened:\n");
  for (const std::string& line : found.story) fmt::print("  {}\n", line);
  nlohmann::ordered_json critical = nlohmann::ordered_json::array();
  for (const explore::CriticalEvent& event : found.critical) {
    fmt::print("critical event: {}\n", event.statement);
    critical.push_back(critical_json(event));
  }
  fmt::print("minimal plan written to {}\n  {}\n", out,
             runner::replay_command(scenarios::parse_scenario(text, out), found_case.minimal.seed, goal.mode));
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
  const std::vector<scenarios::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: explore takes one scenario file", arguments.path));
  const scenarios::Scenario& scenario = loaded.front();
  const std::optional<model::Fencing> fencing =
      arguments.fencing.empty() ? std::nullopt
                                : std::optional{scenarios::fencing_modes_from_switch(arguments.fencing)->front()};
  const explore::ExploreGoal goal = explore::choose_goal(scenario, target_kind(arguments.target), fencing);
  explore::SearchOptions options;
  options.seed = arguments.seed ? *arguments.seed : std::random_device{}();
  options.tests = arguments.tests;

  fmt::print("explore {}: seed {}, up to {} tests, {}\n", scenario.name, options.seed, options.tests,
             scenarios::fencing_mode_name(goal.mode));
  fmt::print("looking for {}: {}\n", explore::kind_names(goal.kinds), goal.reason);
  explore::CaseRunner case_runner{goal.mode, goal.kinds};
  const explore::SearchResult result = explore::search(scenario, case_runner, options);

  nlohmann::ordered_json report{{"scenario", scenario.name},
                                {"file", scenario.file},
                                {"seed", options.seed},
                                {"mode", scenarios::fencing_mode_name(goal.mode)},
                                {"looking_for", explore::kind_names(goal.kinds)},
                                {"reason", goal.reason},
                                {"tests_run", result.tests_run},
                                {"found", result.counterexample.has_value()}};
  const bool hazard = goal.meaning == explore::GoalMeaning::kShowHazard;
  if (result.counterexample) {
    const std::string out = arguments.out.empty() ? scenario.name + "-minimal.json" : arguments.out;
    report["counterexample"] =
        report_counterexample(scenario, goal, case_runner, *result.counterexample, options.seed, out);
  } else {
    fmt::print("{} tests passed: no run showed {} ({} simulations)\n", result.tests_run,
               explore::kind_names(goal.kinds), case_runner.simulations());
    if (hazard) fmt::print("the hazard the file claims was not shown\n");
  }
  report["simulations"] = case_runner.simulations();
  if (!arguments.json_file.empty()) write_text(arguments.json_file, report.dump(2) + "\n", "--json");
  // Finding what the file claims is the expected outcome; so is finding nothing that breaks it.
  return result.counterexample.has_value() == hazard ? ExitCode::kOk : ExitCode::kExpectationFailed;
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
