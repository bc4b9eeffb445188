// `locksim replay SCENARIO --seed S [--fencing on|off] [--history FILE.jsonl]
//   [--save-plan FILE.json]`: one seed, as a readable trace — true time, the
// proc's own clock, proc, event and its fields, one line each — with the
// checker's violations marked at the events that show them.

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "checker/violation.h"
#include "runner/seed_run.h"
#include "scenario_files.h"
#include "scenarios/fencing_modes.h"
#include "scenarios/plan.h"
#include "scenarios/saved_plan.h"

namespace locksim::cli {
namespace {

struct ReplayArguments {
  std::string path;
  std::uint64_t seed = 1;
  std::string fencing;
  std::string history_file;
  std::string plan_file;
};

// "    12.345678901s  (local 12.340000000s)  worker-1      acquire.ok      lock=billing token=3"
std::string trace_line(std::string_view line, const sim::Simulation& simulation) {
  const nlohmann::ordered_json event = nlohmann::ordered_json::parse(line);
  const std::string proc = event["proc"];
  std::string local = "                    ";
  if (const std::optional<sim::NodeId> node = simulation.find_node(proc)) {
    local = fmt::format("(local {:>14})", checker::format_seconds(simulation.local_time(*node).ns()));
  }
  std::string fields;
  for (const auto& [key, value] : event.items()) {
    if (key == "i" || key == "t" || key == "proc" || key == "ev") continue;
    fields += fmt::format(" {}={}", key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return fmt::format("{:>6} {:>15} {}  {:<10} {:<16}{}", event["i"].get<std::int64_t>(),
                     checker::format_seconds(event["t"].get<std::int64_t>()), local, proc, event["ev"].get<std::string>(),
                     fields);
}

ExitCode replay(const ReplayArguments& arguments) {
  const std::vector<scenarios::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: replay takes one scenario file", arguments.path));
  const scenarios::Scenario& scenario = loaded.front();
  // Without --fencing, the scenario's mode (compare: its first, off).
  const model::Fencing fencing = arguments.fencing.empty()
                                     ? scenario.fencing_modes.front()
                                     : scenarios::fencing_modes_from_switch(arguments.fencing)->front();
  const scenarios::Plan plan = scenarios::make_plan(scenario, arguments.seed);

  std::ofstream history;
  if (!arguments.history_file.empty()) {
    history.open(arguments.history_file, std::ios::binary);
    if (!history) throw BadInput(fmt::format("{}: cannot write the file", arguments.history_file));
  }
  std::vector<std::string> trace;
  const runner::SeedRun run = runner::run_plan(scenario, plan, fencing, [&](std::string_view line, const sim::Simulation& simulation) {
    trace.push_back(trace_line(line, simulation));
    if (history.is_open()) history << line << '\n';
  });
  if (!arguments.plan_file.empty()) {
    std::ifstream original{scenario.file, std::ios::binary};
    std::ostringstream original_text;
    original_text << original.rdbuf();
    std::ofstream output{arguments.plan_file, std::ios::binary};
    output << scenarios::saved_plan_json(original_text.str(), scenario, plan);
    if (!output) throw BadInput(fmt::format("{}: cannot write the file", arguments.plan_file));
  }

  fmt::print("{} — seed {}, fencing {}\n{}\n\n", scenario.name, arguments.seed, scenarios::fencing_switch_name(fencing),
             scenario.description);
  std::map<std::int64_t, std::vector<std::string>> marks;
  for (const checker::Violation& violation : run.verdict.violations) {
    if (!violation.events.empty()) marks[violation.events.back()].emplace_back(checker::violation_kind_name(violation.kind));
  }
  for (std::size_t index = 0; index < trace.size(); ++index) {
    const auto mark = marks.find(static_cast<std::int64_t>(index));
    fmt::print("{}{}\n", trace[index], mark == marks.end() ? "" : fmt::format("   <<< {}", fmt::join(mark->second, ", ")));
  }
  fmt::print("\n{} events, {} history lines, history hash {:016x}\n", run.events, run.history_events, run.history_hash);
  fmt::print("{}\n", run.why_stopped);
  for (const std::string& waiting : run.blocked) fmt::print("  still waiting: {}\n", waiting);
  if (run.verdict.violations.empty()) {
    fmt::print("no violation\n");
    return ExitCode::kOk;
  }
  for (const checker::Violation& violation : run.verdict.violations) fmt::print("{}\n", violation.detail);
  return ExitCode::kExpectationFailed;
}

}  // namespace

void add_replay_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<ReplayArguments>();
  CLI::App* command = app.add_subcommand("replay", "Run one seed and print a readable trace");
  command->add_option("scenario", arguments->path, "The scenario file")->required();
  command->add_option("--seed", arguments->seed, "The seed")->required();
  command->add_option("--fencing", arguments->fencing, "on or off (default: the scenario's; compare means off)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--history", arguments->history_file, "Write the JSONL history here");
  command->add_option("--save-plan", arguments->plan_file, "Write this seed's plan as a scenario file here");
  command->callback([arguments, &exit_code] { exit_code = replay(*arguments); });
}

}  // namespace locksim::cli
