// `locksim run SCENARIO|DIR... [--seeds N] [--first-seed S] [--seed S]
//   [--fencing on|off|compare] [--shard K/N] [--recheck P] [--json FILE]
//   [--junit FILE] [--quiet] [--threads N] [--require-expectations]` (docs/cli.md;
//   --threads and --require-expectations are extensions). SCENARIO may also be
//   a built-in scenario's name from `locksim list`.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "command.h"
#include "output_files.h"
#include "reports/junit_xml.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "runner/scenario_run.h"
#include "runner/shard_choice.h"
#include "scenario_files.h"
#include "scenario/fencing_modes.h"
#include "scenario/seed_limits.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

struct RunArguments {
  std::vector<std::string> paths;
  std::optional<std::uint64_t> seeds;
  std::optional<std::uint64_t> first_seed;
  std::optional<std::uint64_t> seed;
  std::string fencing;
  std::string shard;
  double recheck = 0.02;
  std::string oracle = "on";
  std::string json_file;
  std::string junit_file;
  bool quiet = false;
  bool require_expectations = false;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

runner::RunRequest request_from(const RunArguments& arguments) {
  runner::RunRequest request;
  if (arguments.seed) {
    request.first_seed = *arguments.seed;
    request.seed_count = 1;
  } else {
    request.first_seed = arguments.first_seed.value_or(1);
    request.seed_count = arguments.seeds;
  }
  if (!arguments.fencing.empty()) request.modes = scenario::fencing_modes_from_switch(arguments.fencing);
  if (!arguments.shard.empty()) {
    runner::ShardChoice shard;
    try {
      shard = runner::choose_shard(arguments.shard, runner::process_environment);
    } catch (const std::invalid_argument& error) {
      throw BadInput(error.what());
    }
    if (!shard.source.empty()) {
      print_to_stderr("locksim: --shard {}: shard {}/{} from {}\n", arguments.shard, shard.index, shard.count,
                 shard.source);
    }
    request.shard_index = shard.index;
    request.shard_count = shard.count;
  }
  request.threads = arguments.threads;
  request.recheck_fraction = arguments.recheck;
  request.oracle = arguments.oracle == "off" ? runner::OracleChoice::kOff : runner::OracleChoice::kOn;
  return request;
}

// A scenario's own first seed (a saved plan's `first_seed`) unless the
// command line gave one.
runner::RunRequest request_for(const scenario::Scenario& scenario, const RunArguments& arguments,
                               runner::RunRequest request) {
  if (!arguments.seed && !arguments.first_seed && scenario.first_seed) request.first_seed = *scenario.first_seed;
  return request;
}


// The flags that change what is run or judged, as given: shards of one run
// must agree on them (`merge` refuses a mix). --seeds, --first-seed and
// --shard are checked from the scenarios' seeds and shards themselves.
std::map<std::string, std::string> run_flags(const RunArguments& arguments) {
  return {{"fencing", arguments.fencing.empty() ? "scenario" : arguments.fencing},
          {"oracle", arguments.oracle},
          {"recheck", fmt::format("{}", arguments.recheck)},
          {"require-expectations", arguments.require_expectations ? "yes" : "no"}};
}

ExitCode run(const RunArguments& arguments) {
  const runner::RunRequest request = request_from(arguments);
  check_writable("--json", arguments.json_file);
  check_writable("--junit", arguments.junit_file);
  const LoadedScenarios loaded = load_scenarios_keeping_going(arguments.paths);
  for (const reports::BadScenarioFile& bad : loaded.bad_files) print_to_stderr("locksim: {}\n", bad.message);
  const std::vector<scenario::Scenario>& scenarios = loaded.scenarios;
  const bool show_progress = !arguments.quiet && isatty(STDERR_FILENO) == 1;
  std::vector<runner::ScenarioSummary> summaries;
  for (const scenario::Scenario& scenario : scenarios) {
    runner::Progress progress;
    if (show_progress) {
      progress = [&scenario](std::uint64_t done, std::uint64_t total) {
        print_to_stderr("\r{} {}/{} seeds", scenario.name, done, total);
        if (done == total) print_to_stderr("\r\033[K");
      };
    }
    summaries.push_back(runner::run_scenario(scenario, request_for(scenario, arguments, request), progress));
  }
  const reports::TableDetail detail = arguments.quiet ? reports::TableDetail::kFailuresOnly : reports::TableDetail::kFull;
  fmt::print("{}", reports::summary_to_table(summaries, detail, loaded.bad_files.size()));
  if (!arguments.quiet) fmt::print("{}", reports::speed_line(summaries, request.threads));
  if (!arguments.quiet) fmt::print("{}", reports::recheck_line(summaries));
  print_to_stderr("{}", reports::internal_failures(summaries));

  ExitCode code = exit_code_of(summaries);
  if (arguments.require_expectations &&
      std::any_of(summaries.begin(), summaries.end(), [](const runner::ScenarioSummary& s) { return !s.judged; })) {
    print_to_stderr("locksim: --require-expectations: a scenario was not judged (no expectation applies to a mode)\n");
    code = more_severe(code, ExitCode::kExpectationFailed);
  }
  if (!loaded.bad_files.empty()) {
    print_to_stderr("locksim: {} scenario file{} could not be loaded (see above)\n", loaded.bad_files.size(),
               loaded.bad_files.size() == 1 ? "" : "s");
    code = more_severe(code, ExitCode::kBadInput);
  }
  try {
    if (!arguments.json_file.empty()) write_output_file(arguments.json_file, reports::summary_to_json(summaries, loaded.bad_files, run_flags(arguments)));
    if (!arguments.junit_file.empty()) {
      write_output_file(arguments.junit_file,
                 reports::summary_to_junit(summaries, {loaded.bad_files, arguments.require_expectations}));
    }
  } catch (const BadInput& error) {
    print_to_stderr("locksim: {}\n", error.what());
    code = more_severe(code, ExitCode::kBadInput);
  }
  return code;
}

}  // namespace

void add_run_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<RunArguments>();
  CLI::App* command = app.add_subcommand("run", "Run scenarios over many seeds and check their expectations");
  command->add_option("scenarios", arguments->paths,
                      "Scenario files, directories of them, or built-in scenario names (locksim list)")
      ->required();
  auto* seeds = command->add_option("--seeds", arguments->seeds, "How many seeds (default: the scenario's `seeds`)")
                    ->check(CLI::Range(static_cast<std::uint64_t>(scenario::kFewestSeeds),
                                      static_cast<std::uint64_t>(scenario::kMostSeeds)));
  const auto seed_range = CLI::Range(std::uint64_t{0}, static_cast<std::uint64_t>(scenario::kLargestFirstSeed));
  auto* first = command->add_option("--first-seed", arguments->first_seed, "The first seed (default 1)")->check(seed_range);
  command->add_option("--seed", arguments->seed, "Run this one seed")->excludes(seeds)->excludes(first)->check(seed_range);
  command->add_option("--fencing", arguments->fencing, "on, off or compare (default: the scenario's storage.fencing)")
      ->check(CLI::IsMember(scenario::fencing_switch_words()));
  command->add_option("--shard", arguments->shard,
                      "K/N: run only the seeds with seed % N == K; auto (or auto/N): K and N from the CI job's "
                      "environment (GitLab, Buildkite, Kubernetes Indexed Job; docs/scale-out.md)");
  command->add_option("--recheck", arguments->recheck, "Share of seeds run twice to compare histories (default 0.02)")
      ->check(CLI::Range(0.0, 1.0));
  command->add_option("--oracle", arguments->oracle,
                      "on (default): compare every run's checker verdict with the in-simulation oracle; off: skip it")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--json", arguments->json_file, "Write the summary JSON here");
  command->add_option("--junit", arguments->junit_file, "Write JUnit XML here");
  command->add_flag("--require-expectations", arguments->require_expectations,
                    "Exit 1 if a scenario is not judged (a mode ran that no stated expectation applies to)");
  command->add_flag("--quiet", arguments->quiet, "No progress; print only failures and the count");
  command->add_option("--threads", arguments->threads, "Worker threads (default: the machine's cores)")
      ->check(CLI::Range(1u, 256u));
  command->callback([arguments, &exit_code] { exit_code = run(*arguments); });
}

}  // namespace locksim::cli
