// `locksim replay SCENARIO [--seed S] [--fencing on|off] [--history FILE.jsonl]
//   [--save-plan FILE.json] [--procs P,...] [--around VIOLATION[:SECONDS]]
//   [--hide EVENT,...] [--raw] [--svg FILE.svg] [--timeline]`: one seed, as a readable trace (printed by
// reports/trace.h) with the checker's violations marked. SCENARIO may be a
// built-in scenario's name; --seed may be left out for a file that records
// its seed (`first_seed`, as a saved plan does). --svg also draws the run
// as swimlanes (reports/timeline_svg.h); --timeline prints them in the
// terminal in place of the trace (reports/timeline_text.h).

#include <fstream>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "reports/timeline.h"
#include "reports/timeline_svg.h"
#include "reports/timeline_text.h"
#include "reports/trace.h"
#include "reports/trace_view.h"
#include "runner/seed_run.h"
#include "scenario_files.h"
#include "scenario/fencing_modes.h"
#include "scenario/plan.h"
#include "scenario/saved_plan.h"
#include "scenario/scenario_text.h"
#include "scenario/seed_limits.h"
#include "verify/counterexample_file.h"

namespace locksim::cli {
namespace {

struct ReplayArguments {
  std::string path;
  std::optional<std::uint64_t> seed;
  std::string fencing;
  std::string history_file;
  std::string plan_file;
  std::string svg_file;
  bool timeline = false;
  reports::TraceFlags trace;
};

ExitCode replay(const ReplayArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios({arguments.path}, ChoiceFiles::kAccepted);
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: replay takes one scenario file", arguments.path));
  const scenario::Scenario& scenario = loaded.front();
  // Without --fencing, the scenario's mode (compare: its first, off).
  const model::Fencing fencing = arguments.fencing.empty()
                                     ? scenario.fencing_modes.front()
                                     : scenario::fencing_modes_from_switch(arguments.fencing)->front();
  reports::TraceViewParse view =
      reports::parse_trace_view(arguments.trace, reports::trace_proc_names(scenario::scenario_node_names(scenario)));
  if (!view.view) throw BadInput(view.error);
  if (scenario.choices && (arguments.seed || !arguments.plan_file.empty())) {
    throw BadInput(fmt::format("{}: a verify counterexample is replayed by its `choices`, not by a seed: "
                               "leave out --seed and --save-plan",
                               arguments.path));
  }
  const std::optional<std::uint64_t> seed = arguments.seed ? arguments.seed : scenario.first_seed;
  if (!seed && !scenario.choices) {
    throw BadInput(fmt::format("{}: replay needs --seed S (the file records no first_seed)", arguments.path));
  }

  std::ofstream history;
  if (!arguments.history_file.empty()) {
    history.open(arguments.history_file, std::ios::binary);
    if (!history) throw BadInput(fmt::format("{}: cannot write the file", arguments.history_file));
  }
  // Opened before the run, so that a bad path costs no simulation.
  std::ofstream svg;
  if (!arguments.svg_file.empty()) {
    svg.open(arguments.svg_file, std::ios::binary);
    if (!svg) throw BadInput(fmt::format("--svg {}: cannot write the file", arguments.svg_file));
  }
  std::vector<reports::TraceEntry> trace;
  const runner::LineWatcher watch = [&](std::string_view line, const sim::Simulation& simulation) {
    reports::TraceEntry entry = reports::trace_entry(line);
    if (const std::optional<sim::NodeId> node = simulation.find_node(entry.proc)) {
      entry.local_time_ns = simulation.local_time(*node).ns();
    }
    trace.push_back(std::move(entry));
    if (history.is_open()) history << line << '\n';
  };
  runner::SeedRun run;
  scenario::Plan plan;
  if (scenario.choices) {
    const verify::Bounds bounds = verify::bounds_of(*scenario.choices);
    const std::optional<scenario::Scenario> extended = verify::with_extra_faults(scenario, bounds.extra_faults);
    if (!extended) throw BadInput(fmt::format("{}: /choices/faults: the file has no pause and no crash to add more of", arguments.path));
    verify::VerifiedRun made = verify::rerun_script(*extended, fencing, verify::script_of(*scenario.choices), bounds, watch);
    if (const std::string problem = verify::check_sites(*scenario.choices, made); !problem.empty()) {
      throw BadInput(fmt::format("{}: {}", arguments.path, problem));
    }
    run = std::move(made.run);
  } else {
    plan = scenario::make_plan(scenario, *seed);
    run = runner::run_plan(scenario, plan, fencing, watch);
  }
  if (!arguments.plan_file.empty()) {
    std::ofstream output{arguments.plan_file, std::ios::binary};
    output << scenario::saved_plan_json(scenario::read_scenario_text(scenario.file), scenario, plan);
    if (!output) throw BadInput(fmt::format("{}: cannot write the file", arguments.plan_file));
  }

  std::optional<std::string> swimlanes;
  if (svg.is_open() || arguments.timeline) {
    const reports::Timeline timeline = reports::build_timeline(trace, run.verdict);
    if (svg.is_open()) {
      svg << reports::timeline_svg(timeline);
      if (!svg.flush()) throw BadInput(fmt::format("--svg {}: cannot write the file", arguments.svg_file));
    }
    if (arguments.timeline) {
      swimlanes = reports::timeline_text(timeline, {.rows = 40, .colour = isatty(STDOUT_FILENO) == 1});
    }
  }
  fmt::print("{}", reports::replay_text(scenario, run, trace, *view.view, swimlanes));
  return run.verdict.violations.empty() ? ExitCode::kOk : ExitCode::kExpectationFailed;
}

}  // namespace

void add_replay_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<ReplayArguments>();
  CLI::App* command = app.add_subcommand("replay", "Run one seed and print a readable trace");
  command->add_option("scenario", arguments->path, "The scenario file, or a built-in scenario's name (locksim list)")
      ->required();
  command->add_option("--seed", arguments->seed, "The seed (required unless the file records first_seed)")
      ->check(CLI::Range(std::uint64_t{0}, static_cast<std::uint64_t>(scenario::kLargestFirstSeed)));
  command->add_option("--fencing", arguments->fencing, "on or off (default: the scenario's; compare means off)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--history", arguments->history_file, "Write the JSONL history here");
  command->add_option("--save-plan", arguments->plan_file, "Write this seed's plan as a scenario file here");
  command->add_option("--procs", arguments->trace.procs, "Show only these procs' lines (comma-separated or repeated)")
      ->type_name("PROC,...");
  command->add_option("--around", arguments->trace.around,
                      "Show only lines within SECONDS (default 5) of true time of each violation of KIND: stale_write:2")
      ->type_name("KIND[:SECONDS]");
  command->add_option("--hide", arguments->trace.hide, "Leave out these events and count them (comma-separated or repeated)")
      ->type_name("EVENT,...");
  command->add_option("--svg", arguments->svg_file, "Also write the run as a swimlane picture (SVG) here")
      ->type_name("FILE.svg");
  command->add_flag("--timeline", arguments->timeline,
                    "Print the run as swimlanes (a column per lane, time going down) instead of the trace");
  command->add_flag("--raw", arguments->trace.raw, "Exact numbers: *_ns fields in nanoseconds, times to the nanosecond");
  command->callback([arguments, &exit_code] { exit_code = replay(*arguments); });
}

}  // namespace locksim::cli
