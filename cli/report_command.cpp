// `locksim report SCENARIO|DIR|NAME... --out DIR [--seeds N] [--threads N]`:
// the teaching report. For each scenario it runs the seeds in the file's
// fencing modes, explores for the smallest run that shows its hazard, draws
// that run with fencing off and on, sweeps a worker pause around the lease,
// and writes one self-contained page (reports/report_html.h); then
// DIR/index.html with the suite's table and what to take away. Minimal
// plans go to DIR/plans/, so every replay command on a page runs as printed.
//
// Exit: 0 written; 2 bad input; 3 the checker and the oracle disagreed on a run.

#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "command.h"
#include "output_files.h"
#include "reports/report_html.h"
#include "reports/scenario_report.h"
#include "scenario_files.h"
#include "scenario/seed_limits.h"
#include "text/terminal_escape.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

struct ReportArguments {
  std::vector<std::string> paths;
  std::string out;
  std::optional<std::uint64_t> seeds;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

bool oracle_disagreed(const runner::ScenarioSummary& summary) {
  return std::ranges::any_of(summary.modes, [](const runner::ModeSummary& mode) { return mode.oracle_disagreeing_runs > 0; });
}

ExitCode report(const ReportArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios(arguments.paths);
  const std::filesystem::path out{arguments.out};
  prepare_output_directory("--out", arguments.out);
  prepare_output_directory("--out", (out / "plans").string());
  // The wall clock is read here, outside every simulation, only to say how long it took.
  const auto started = std::chrono::steady_clock::now();

  std::vector<std::string> taken;
  std::vector<reports::ScenarioReport> gathered;
  std::vector<std::string> pages;
  gathered.reserve(loaded.size());
  ExitCode code = ExitCode::kOk;
  for (const scenario::Scenario& scenario : loaded) {
    const std::string page = reports::page_file_name(scenario.name, taken);
    const std::string stem = page.substr(0, page.size() - std::string_view{".html"}.size());
    const std::string plan_name = "plans/" + stem + "-minimal.json";
    reports::ReportSettings settings;
    settings.seeds = arguments.seeds;
    settings.threads = arguments.threads;
    settings.minimal_plan_path = (out / plan_name).string();
    reports::ScenarioReport gathered_report = reports::gather_scenario_report(scenario, settings);
    reports::PageLinks links;
    if (gathered_report.exploration.finding) {
      write_output_file(settings.minimal_plan_path, gathered_report.exploration.finding->minimal_file_text);
      links.minimal_plan = plan_name;
    }
    write_output_file(out / page, reports::scenario_page_html(gathered_report, links));
    if (oracle_disagreed(gathered_report.summary)) {
      print_to_stderr("locksim: {}: the checker and the in-simulation oracle disagreed on a run (a bug in locksim); "
                         "`locksim run` on the file says where\n", text::terminal_escaped(scenario.file));
      code = ExitCode::kInternalError;
    }
    fmt::print("{}: {}\n", text::terminal_escaped(scenario.name), text::terminal_escaped((out / page).string()));
    gathered.push_back(std::move(gathered_report));
    pages.push_back(page);
  }
  std::vector<reports::IndexEntry> entries;
  for (std::size_t index = 0; index < gathered.size(); ++index) entries.push_back({&gathered[index], pages[index]});
  write_output_file(out / "index.html", reports::index_page_html(entries));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print("wrote {} and {} scenario page{} in {:.1f} s\n", text::terminal_escaped((out / "index.html").string()),
             gathered.size(),
             gathered.size() == 1 ? "" : "s", seconds);
  return code;
}

}  // namespace

void add_report_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<ReportArguments>();
  CLI::App* command = app.add_subcommand(
      "report", "Write teaching pages (HTML with SVG timelines, fencing off and on) for scenarios and an index");
  command->add_option("scenarios", arguments->paths, "Scenario files, directories of them, or built-in names")
      ->required();
  command->add_option("--out", arguments->out, "The directory for index.html, the pages and plans/ (created if missing)")
      ->required();
  command->add_option("--seeds", arguments->seeds, "Seeds per scenario and fencing mode (default: each file's `seeds`)")
      ->check(CLI::Range(static_cast<std::uint64_t>(scenario::kFewestSeeds),
                         static_cast<std::uint64_t>(scenario::kMostSeeds)));
  command->add_option("--threads", arguments->threads, "Worker threads (default: the machine's cores)")
      ->check(CLI::Range(1u, 256u));
  command->callback([arguments, &exit_code] { exit_code = report(*arguments); });
}

}  // namespace locksim::cli
