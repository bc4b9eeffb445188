// `locksim sweep SCENARIO --vary PATH=FROM..TO[:STEPS] [--vary …] [--seeds N]
//   [--threads N] [--kind KIND] --out DIR`: runs the scenario at every value
//   of one or two settings in both fencing modes and writes DIR/sweep.csv
//   with DIR/sweep.svg (one --vary) or DIR/heatmap.svg (two). A sweep draws
//   a curve; it judges no expectation (docs/cli.md).

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "command.h"
#include "output_files.h"
#include "reports/heat_map.h"
#include "reports/rate_plot.h"
#include "reports/sweep_csv.h"
#include "reports/sweep_table.h"
#include "reports/terminal_table.h"
#include "runner/sweep.h"
#include "scenario_files.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_text.h"
#include "scenario/seed_limits.h"
#include "text/terminal_escape.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

struct SweepArguments {
  std::string scenario;
  std::vector<std::string> varies;
  std::optional<std::uint64_t> seeds;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string kind = "stale_write";
  std::string out;
};

std::string read_scenario_text(const std::string& path) {
  try {
    return scenario::read_scenario_text(path);
  } catch (const scenario::ScenarioError& error) {
    throw BadInput(error.what());
  }
}

checker::ViolationKind kind_named(const std::string& name) {
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    if (checker::violation_kind_name(kind) == name) return kind;
  }
  std::string names;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", checker::violation_kind_name(kind));
  }
  throw BadInput(fmt::format("--kind: expected a violation kind ({}), got \"{}\"", names, name));
}

runner::SweepPlan plan_from(const SweepArguments& arguments) {
  const std::string file = resolve_scenario_path(arguments.scenario);
  if (std::filesystem::is_directory(file)) {
    throw BadInput(fmt::format("{}: expected one scenario file or built-in name, not a directory", file));
  }
  try {
    std::vector<runner::SweepAxis> axes;
    for (const std::string& vary : arguments.varies) axes.push_back(runner::parse_vary(vary));
    runner::SweepPlan plan = runner::plan_sweep(read_scenario_text(file), file, std::move(axes));
    print_setting_warnings(plan.points.front().scenario);
    return plan;
  } catch (const runner::SweepInputError& error) {
    throw BadInput(error.what());
  }
}

ExitCode sweep(const SweepArguments& arguments) {
  const checker::ViolationKind heat_map_kind = kind_named(arguments.kind);
  runner::SweepPlan plan = plan_from(arguments);
  prepare_output_directory("--out", arguments.out);

  const bool show_progress = isatty(STDERR_FILENO) == 1;
  runner::SweepProgress progress;
  if (show_progress) {
    progress = [](std::size_t done, std::size_t total) {
      print_to_stderr("\rsweep {}/{} points", done, total);
      if (done == total) print_to_stderr("\r\033[K");
    };
  }
  const runner::SweepResult result = runner::run_sweep(std::move(plan), {arguments.seeds, arguments.threads}, progress);

  const std::filesystem::path directory{arguments.out};
  const std::filesystem::path csv = directory / "sweep.csv";
  const bool heat_map = result.plan.axes.size() == 2;
  const std::filesystem::path svg = directory / (heat_map ? "heatmap.svg" : "sweep.svg");
  write_output_file(csv, reports::sweep_to_csv(result));
  write_output_file(svg, heat_map ? reports::heat_map_svg(result, heat_map_kind) : reports::rate_plot_svg(result));

  fmt::print("{}: {} seeds per point and fencing mode, share of runs with each violation\n",
             text::terminal_escaped(result.plan.scenario_name), result.seeds_per_point);
  fmt::print("{}", reports::sweep_to_table(result));
  fmt::print("wrote {} and {}\n", text::terminal_escaped(csv.string()), text::terminal_escaped(svg.string()));

  // As `run`: a disagreement between the checker and the oracle is exit 3.
  print_to_stderr("{}", reports::internal_failures(result.summaries));
  ExitCode code = ExitCode::kOk;
  for (const runner::ScenarioSummary& summary : result.summaries) {
    for (const runner::ModeSummary& mode : summary.modes) {
      if (mode.oracle_disagreeing_runs > 0) code = ExitCode::kInternalError;
    }
  }
  return code;
}

}  // namespace

void add_sweep_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<SweepArguments>();
  CLI::App* command =
      app.add_subcommand("sweep", "Run a scenario at a range of values of one or two settings; write a CSV and a plot");
  command->add_option("scenario", arguments->scenario, "A scenario file or a built-in scenario's name (locksim list)")
      ->required();
  command
      ->add_option("--vary", arguments->varies,
                   "PATH=FROM..TO[:STEPS]: a JSON pointer into the scenario and the range of its values, e.g. "
                   "/faults/0/for=5s..20s:16 (once, or twice for a heat map)")
      ->required()
      ->allow_extra_args(false);
  command->add_option("--seeds", arguments->seeds, "Seeds per value and fencing mode (default: the scenario's `seeds`)")
      ->check(CLI::Range(static_cast<std::uint64_t>(scenario::kFewestSeeds),
                         static_cast<std::uint64_t>(scenario::kMostSeeds)));
  command->add_option("--threads", arguments->threads, "Worker threads (default: the machine's cores)")
      ->check(CLI::Range(1u, 256u));
  command->add_option("--kind", arguments->kind, "The violation kind the heat map shows (default stale_write)");
  command->add_option("--out", arguments->out, "The directory for sweep.csv and the SVG (created if missing)")
      ->required();
  command->callback([arguments, &exit_code] { exit_code = sweep(*arguments); });
}

}  // namespace locksim::cli
