// `locksim live SCENARIO [--runs N] [--time-scale F] [--fencing off|on|compare]
//   [--redis HOST:PORT] [--prefix P] [--allow-remote] [--compare-sim
//   [--require-agreement]] [--history DIR] [--json FILE]`: the scenario
// against a real Redis (live/live_scenario.h runs and judges it; this parses
// the flags, prints and writes the files); with --compare-sim the same seeds
// simulated beside it, and whether the two agree (runner/live_agreement.h).
// Also the hidden `live-worker`, the worker process live mode starts.
//
// Exit: as `run` (0 every expectation held, 1 one failed, 2 bad input, 3
// internal); with --require-agreement also 1 when live and simulated disagree.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.h"
#include "exit_code.h"
#include "live/live_run.h"
#include "live/live_scenario.h"
#include "live/live_worker.h"
#include "live/worker_config.h"
#include "live/worker_launch.h"
#include "output_files.h"
#include "reports/agreement_text.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "runner/live_agreement.h"
#include "runner/scenario_run.h"
#include "runner/summary.h"
#include "scenario_files.h"
#include "scenario/fencing_modes.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

// A 10 s lease lasts 500 ms live.
constexpr double kDefaultTimeScale = 0.05;

struct LiveArguments {
  std::string path;
  int runs = 10;
  std::optional<double> time_scale;  // default kDefaultTimeScale, 1 for a consensus service
  double ready_timeout_s = 10;
  std::string fencing;
  std::string redis;
  std::string prefix;
  bool allow_remote = false;
  bool compare_sim = false;
  bool require_agreement = false;
  std::string history_directory;
  std::string json_file;
};

live::Endpoint parse_endpoint(const std::string& text, bool allow_remote) {
  const std::size_t colon = text.rfind(':');
  live::Endpoint endpoint;
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no port");
    endpoint.host = text.substr(0, colon);
    std::size_t used = 0;
    endpoint.port = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1 || endpoint.port < 1 || endpoint.port > 65535) throw std::invalid_argument("port");
  } catch (const std::exception&) {
    throw BadInput(fmt::format("--redis {}: expected HOST:PORT, e.g. 127.0.0.1:6379", text));
  }
  if (endpoint.host == "localhost") endpoint.host = "127.0.0.1";
  if (!allow_remote && !endpoint.host.starts_with("127.")) {
    throw BadInput(fmt::format("--redis {}: live mode talks only to loopback (127.0.0.0/8) unless --allow-remote is given",
                               text));
  }
  return endpoint;
}

void write_history(const std::string& directory, const std::string& name, std::uint64_t seed, model::Fencing mode,
                   const std::vector<std::string>& history) {
  std::string text;
  for (const std::string& line : history) text += line + "\n";
  write_output_file(std::filesystem::path{directory} /
                        fmt::format("{}-live-seed{}-{}.jsonl", file_name_part(name), seed, scenario::fencing_mode_name(mode)),
                    text);
}

ExitCode live(const LiveArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: live takes one scenario file", arguments.path));
  const scenario::Scenario& scenario = loaded.front();
  if (!arguments.history_directory.empty()) prepare_output_directory("--history", arguments.history_directory);
  live::LiveScenarioRequest request;
  request.runs = arguments.runs;
  // etcd's timing is its own (its TTLs are whole seconds): a consensus scenario runs at its real length.
  const bool consensus = scenario.system.service.kind == model::ServiceKind::kConsensus;
  request.time_scale = arguments.time_scale.value_or(consensus ? 1.0 : kDefaultTimeScale);
  request.ready_timeout = std::chrono::milliseconds{std::llround(arguments.ready_timeout_s * 1000)};
  if (!arguments.fencing.empty()) request.modes = *scenario::fencing_modes_from_switch(arguments.fencing);
  if (!arguments.redis.empty()) request.redis = parse_endpoint(arguments.redis, arguments.allow_remote);
  request.prefix = arguments.prefix;
  if (!arguments.history_directory.empty()) {
    request.on_history = [&](std::uint64_t seed, model::Fencing mode, const std::vector<std::string>& history) {
      write_history(arguments.history_directory, scenario.name, seed, mode, history);
    };
  }
  request.on_notice = [](std::uint64_t seed, model::Fencing mode, const std::string& notice) {
    print_to_stderr("locksim: live: seed {} {}: {}\n", seed, scenario::fencing_mode_name(mode), notice);
  };
  live::LiveScenarioResult outcome;
  try {
    if (const std::string why = live::live_unsupported(scenario); !why.empty()) {
      throw BadInput(fmt::format("{}: {}", scenario.file, why));
    }
    for (const std::string& line : live::live_notices(scenario, request)) print_to_stderr("locksim: live: {}\n", line);
    for (const std::string& directory : live::remove_left_behind_directories()) {
      print_to_stderr("locksim: live: removed {}, left by a locksim that no longer runs (killed before it could)\n",
                      directory);
    }
    outcome = live::run_live_scenario(scenario, request);
  } catch (const live::LiveRefusal& refusal) {
    throw BadInput(refusal.what());
  } catch (const live::LiveInterrupted& interrupted) {
    throw Interrupted(interrupted.what(), interrupted.signal());
  } catch (const live::WorkerProgramError& error) {
    throw BadInput(fmt::format("{}: {}", scenario.file, error.what()));  // the user's program broke the contract
  }

  std::vector<runner::ScenarioSummary> summaries{outcome.summary};
  std::vector<runner::KindAgreement> agreement;
  if (arguments.compare_sim) {
    runner::RunRequest run;
    run.first_seed = outcome.summary.first_seed;
    run.seed_count = static_cast<std::uint64_t>(arguments.runs);
    run.modes = request.modes.empty() ? scenario.fencing_modes : request.modes;
    run.threads = std::max(1u, std::thread::hardware_concurrency());
    runner::ScenarioSummary simulated = runner::run_scenario(scenario, run);
    simulated.name = scenario.name + " (simulated)";
    agreement = runner::compare_live_with_simulated(outcome.summary, simulated);
    summaries.push_back(std::move(simulated));
  }
  fmt::print("live: {} run{} per mode against {}, time scale {}\n", arguments.runs, arguments.runs == 1 ? "" : "s",
             outcome.against, request.time_scale);
  fmt::print("{}", reports::summary_to_table(summaries));
  if (arguments.compare_sim) fmt::print("\n{}", reports::agreement_to_text(agreement));
  if (!arguments.json_file.empty()) {
    std::string json = reports::summary_to_json(summaries);
    if (arguments.compare_sim) {
      auto document = nlohmann::ordered_json::parse(json);
      document["agreement"] = reports::agreement_to_json(agreement);
      json = document.dump(2) + "\n";
    }
    write_output_file(arguments.json_file, json);
  }
  const bool disagree = std::ranges::any_of(agreement, [](const runner::KindAgreement& entry) { return !entry.agree(); });
  const ExitCode agreement_code =
      arguments.require_agreement && disagree ? ExitCode::kExpectationFailed : ExitCode::kOk;
  return more_severe(exit_code_of(summaries), agreement_code);
}

}  // namespace

void add_live_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<LiveArguments>();
  CLI::App* command = app.add_subcommand(
      "live", "Run a scenario against a real redis-server (workers are real processes: a pause is SIGSTOP)");
  command->add_option("scenario", arguments->path, "The scenario file, or a built-in scenario's name (locksim list)")
      ->required();
  command->add_option("--runs", arguments->runs, "Runs per fencing mode, 1 to 10000 (default 10); run k uses seed first_seed+k-1")
      ->check(CLI::Range(1, 10'000));
  command->add_option("--time-scale", arguments->time_scale,
                      "Multiply every scenario duration by F, 0.0001 to 10 (default 0.05: a 10 s lease lasts 500 ms; "
                      "1 for a consensus service, whose etcd has its own timing)")
      ->check(CLI::Range(0.0001, 10.0));
  command->add_option("--ready-timeout", arguments->ready_timeout_s,
                      "Wait at most S seconds for every workers.command program to say it is ready, 0.1 to 600 "
                      "(default 10); a later one starts late, and the run says so")
      ->check(CLI::Range(0.1, 600.0));
  command->add_option("--fencing", arguments->fencing, "on, off or compare (default: the scenario's)")
      ->check(CLI::IsMember({"on", "off", "compare"}));
  command->add_option("--redis", arguments->redis, "Use this redis-server as the lock service instead of starting one (not for Redlock, whose N servers locksim starts)")
      ->type_name("HOST:PORT");
  command->add_option("--prefix", arguments->prefix, "Put every key under this prefix (needed for a non-empty --redis)");
  command->add_flag("--allow-remote", arguments->allow_remote, "Allow a --redis that is not on loopback");
  CLI::Option* compare_sim = command->add_flag(
      "--compare-sim", arguments->compare_sim,
      "Also simulate the same seeds, print both tables and whether they agree (Fisher's exact test per violation kind)");
  command->add_flag("--require-agreement", arguments->require_agreement,
                    "With --compare-sim: exit 1 also when live and simulated disagree on a violation kind (p < 0.01)")
      ->needs(compare_sim);
  command->add_option("--history", arguments->history_directory, "Write each run's history here (one JSONL file per run and mode)")
      ->type_name("DIR");
  command->add_option("--json", arguments->json_file, "Write the summary (live, and simulated with --compare-sim) as JSON");
  command->callback([arguments, &exit_code] { exit_code = live(*arguments); });

  auto config = std::make_shared<std::string>();
  CLI::App* worker = app.add_subcommand("live-worker", "A live-mode worker process (started by `locksim live`)");
  worker->group("");  // not for people: hidden from --help
  worker->add_option("--config", *config, "The worker's configuration (JSON)")->required();
  worker->callback([config, &exit_code] {
    live::WorkerConfig parsed;
    try {
      parsed = live::parse_worker_config(*config);
    } catch (const std::runtime_error& error) {
      throw BadInput(error.what());
    }
    exit_code = live::run_live_worker(parsed) == 0 ? ExitCode::kOk : ExitCode::kInternalError;
  });
}

}  // namespace locksim::cli
