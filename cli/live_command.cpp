// `locksim live SCENARIO [--runs N] [--time-scale F] [--fencing off|on|compare]
//   [--redis HOST:PORT] [--prefix P] [--allow-remote] [--compare-sim]
//   [--history DIR] [--json FILE]`: the scenario against a real Redis
// (live/live_run.h), each run's history checked by the same checker and the
// runs summed and judged as `run` judges simulated seeds; with --compare-sim
// the same seeds simulated beside it. Also the hidden `live-worker`, the
// worker process live mode starts.
//
// Exit: as `run` (0 every expectation held, 1 one failed, 2 bad input, 3 internal).

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "command.h"
#include "exit_code.h"
#include "live/live_run.h"
#include "live/live_worker.h"
#include "live/redis_client.h"
#include "live/redis_server.h"
#include "live/worker_config.h"
#include "live/worker_launch.h"
#include "output_files.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "runner/cpu_time.h"
#include "runner/scenario_run.h"
#include "runner/summary.h"
#include "scenario_files.h"
#include "scenarios/fencing_modes.h"
#include "scenarios/seed_limits.h"
#include "text/terminal_escape.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

struct LiveArguments {
  std::string path;
  int runs = 10;
  double time_scale = 0.05;
  std::string fencing;
  std::string redis;
  std::string prefix;
  bool allow_remote = false;
  bool compare_sim = false;
  std::string history_directory;
  std::string json_file;
};

// Below this a scaled duration is timed no better than the machine's scheduler allows.
constexpr std::int64_t kReliableNs = 5'000'000;

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

void warn_about_scale(const scenarios::Scenario& scenario, double scale) {
  const auto scaled = [&](sim::Duration duration) {
    return static_cast<std::int64_t>(std::llround(static_cast<double>(duration.count_ns()) * scale));
  };
  if (scenario.system.lock.lease && scaled(*scenario.system.lock.lease) < kReliableNs * 4) {
    print_to_stderr("locksim: live: warning: --time-scale {} makes the lease {}ms; below 20ms this machine's "
                       "scheduling can decide the outcome\n",
               scale, scaled(*scenario.system.lock.lease) / 1'000'000.0);
  }
  if (scaled(scenario.system.service.request_timeout) < kReliableNs) {
    print_to_stderr("locksim: live: warning: --time-scale {} makes the request timeout {}ms; below 5ms replies "
                       "may time out for no reason but the machine\n",
               scale, scaled(scenario.system.service.request_timeout) / 1'000'000.0);
  }
}

// A live run as a seed run, so that it is summed and judged exactly as a simulated one.
runner::SeedRun as_seed_run(const live::LiveRunResult& live, std::uint64_t seed, model::Fencing mode, double cpu_seconds) {
  runner::SeedRun run;
  run.seed = seed;
  run.fencing = mode;
  run.verdict = live.verdict;
  run.faults_fired = live.faults_fired;
  run.stopped_short = live.stopped_short;
  run.why_stopped = live.why_stopped;
  run.unfinished_jobs = live.unfinished_jobs;
  run.events = live.history.size();
  run.history_events = live.history.size();
  run.cpu_seconds = cpu_seconds;
  return run;
}

void write_history(const std::string& directory, const std::string& name, std::uint64_t seed, model::Fencing mode,
                   const std::vector<std::string>& history) {
  std::string text;
  for (const std::string& line : history) text += line + "\n";
  write_output_file(std::filesystem::path{directory} /
                        fmt::format("{}-live-seed{}-{}.jsonl", file_name_part(name), seed, scenarios::fencing_mode_name(mode)),
                    text);
}

ExitCode live(const LiveArguments& arguments) {
  const std::vector<scenarios::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: live takes one scenario file", arguments.path));
  const scenarios::Scenario& scenario = loaded.front();
  if (const std::string why = live::live_unsupported(scenario); !why.empty()) {
    throw BadInput(fmt::format("{}: {}", scenario.file, why));
  }
  if (!arguments.history_directory.empty()) prepare_output_directory("--history", arguments.history_directory);
  const std::vector<model::Fencing> modes = arguments.fencing.empty()
                                                ? scenario.fencing_modes
                                                : *scenarios::fencing_modes_from_switch(arguments.fencing);
  const int instances = live::lock_instance_count(scenario);
  if (!arguments.redis.empty() && instances > 1) {
    throw BadInput(fmt::format("--redis {}: {} has a Redlock service of {} instances, which live mode starts itself "
                               "(--redis names one server)",
                               arguments.redis, scenario.file, instances));
  }
  const bool own_lock_servers = arguments.redis.empty();
  for (const std::string& line : live::faults_without_live_form(scenario, own_lock_servers)) {
    print_to_stderr("locksim: live: {} — skipped, counted as not fired\n", line);
  }
  warn_about_scale(scenario, arguments.time_scale);
  if (scenario.network.drop_probability > 0 || scenario.network.duplicate_probability > 0) {
    print_to_stderr("locksim: live: /network: drop and duplicate probabilities have no live form (TCP neither "
                       "loses nor repeats bytes) — the runs go without them\n");
  }

  // The lock service: the user's server, or our own (Redlock: N of them,
  // each with the scenario's persistence; a redis-failover cluster is
  // started for each run, by the run); storage is always our own.
  const bool failover = scenario.system.service.kind == model::ServiceKind::kRedisFailover;
  if (failover && !own_lock_servers) {
    throw BadInput(fmt::format("--redis {}: a redis-failover scenario runs on a primary, a replica and a Sentinel of "
                               "locksim's own (the failover kills or cuts off the primary)", arguments.redis));
  }
  std::vector<std::unique_ptr<live::RedisServer>> own_lock_servers_started;
  std::vector<live::Endpoint> lock_instances;
  if (!own_lock_servers) {
    const live::Endpoint lock_service = parse_endpoint(arguments.redis, arguments.allow_remote);
    lock_instances.push_back(lock_service);
    live::RedisClient client{lock_service.host, lock_service.port};
    const std::int64_t keys = client.command({"DBSIZE"}).integer;
    if (keys > 0 && arguments.prefix.empty()) {
      throw BadInput(fmt::format("--redis {}: the database holds {} keys; give --prefix P to run beside them (every "
                                 "key locksim makes starts with P, and it deletes only those)",
                                 arguments.redis, keys));
    }
  } else if (!failover) {
    for (int index = 0; index < instances; ++index) {
      own_lock_servers_started.push_back(std::make_unique<live::RedisServer>(live::server_persistence(scenario)));
      lock_instances.push_back({own_lock_servers_started.back()->host(), own_lock_servers_started.back()->port()});
    }
  }
  live::RedisServer own_storage;

  live::LiveRunSettings settings;
  settings.time_scale = arguments.time_scale;
  settings.lock_instances = lock_instances;
  settings.storage = {own_storage.host(), own_storage.port()};
  settings.worker_program = std::filesystem::read_symlink("/proc/self/exe").string();
  for (const auto& server : own_lock_servers_started) settings.own_lock_servers.push_back(server.get());
  const std::uint64_t first_seed = scenario.first_seed.value_or(1);

  runner::ScenarioSummary summary;
  summary.name = scenario.name + " (live)";
  summary.file = scenario.file;
  summary.content_hash = scenario.content_hash;
  summary.first_seed = first_seed;
  summary.seed_count = static_cast<std::uint64_t>(arguments.runs);
  for (const model::Fencing mode : modes) {
    runner::ModeSummary total = runner::empty_mode_summary(mode, scenario.faults.size());
    for (int run = 0; run < arguments.runs; ++run) {
      settings.seed = first_seed + static_cast<std::uint64_t>(run);
      settings.prefix = fmt::format("{}locksim:{}:{}:{}:", arguments.prefix, getpid(), settings.seed,
                                    scenarios::fencing_mode_name(mode));
      live::LiveRunResult result;
      // locksim's own CPU (the coordinator); the workers and servers are processes of their own.
      const double cpu_started = runner::process_cpu_seconds();
      try {
        result = live::run_live(scenario, mode, settings);
      } catch (const live::WorkerProgramError& error) {
        throw BadInput(fmt::format("{}: {}", scenario.file, error.what()));  // the user's program broke the contract
      }
      if (!arguments.history_directory.empty()) {
        write_history(arguments.history_directory, scenario.name, settings.seed, mode, result.history);
      }
      summary.wall_seconds += result.wall_seconds;
      runner::add_run(total, as_seed_run(result, settings.seed, mode, runner::process_cpu_seconds() - cpu_started),
                      fmt::format("locksim live {} --runs 1 --fencing {} (seed {})", scenario.file,
                                  mode == model::Fencing::kOn ? "on" : "off", settings.seed));
    }
    summary.modes.push_back(std::move(total));
  }
  // A fault with no live form never fires live: that alone does not make the run inert.
  summary.allow_inert = scenario.allow_inert || !live::faults_without_live_form(scenario, own_lock_servers).empty();
  summary.expectations = runner::expectations_for(scenario, summary.modes);
  runner::judge(summary);

  std::vector<runner::ScenarioSummary> summaries{summary};
  if (arguments.compare_sim) {
    runner::RunRequest request;
    request.first_seed = first_seed;
    request.seed_count = static_cast<std::uint64_t>(arguments.runs);
    request.modes = modes;
    request.threads = std::max(1u, std::thread::hardware_concurrency());
    runner::ScenarioSummary simulated = runner::run_scenario(scenario, request);
    simulated.name = scenario.name + " (simulated)";
    summaries.push_back(std::move(simulated));
  }
  std::string where;
  for (const live::Endpoint& instance : lock_instances) {
    where += fmt::format("{}{}:{}", where.empty() ? "" : ", ", text::terminal_escaped(instance.host), instance.port);
  }
  const std::string against = failover ? std::string{"a primary, a replica and redis-sentinel started for each run"}
                              : fmt::format("{} at {}", instances > 1 ? fmt::format("{} redis-servers (Redlock)", instances)
                                                                      : "redis-server", where);
  fmt::print("live: {} run{} per mode against {}, time scale {}\n", arguments.runs, arguments.runs == 1 ? "" : "s",
             against, arguments.time_scale);
  fmt::print("{}", reports::summary_to_table(summaries));
  if (!arguments.json_file.empty()) write_output_file(arguments.json_file, reports::summary_to_json(summaries));
  return exit_code_of(summaries);
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
                      "Multiply every scenario duration by F, 0.0001 to 10 (default 0.05: a 10 s lease lasts 500 ms)")
      ->check(CLI::Range(0.0001, 10.0));
  command->add_option("--fencing", arguments->fencing, "on, off or compare (default: the scenario's)")
      ->check(CLI::IsMember({"on", "off", "compare"}));
  command->add_option("--redis", arguments->redis, "Use this redis-server as the lock service instead of starting one (not for Redlock, whose N servers locksim starts)")
      ->type_name("HOST:PORT");
  command->add_option("--prefix", arguments->prefix, "Put every key under this prefix (needed for a non-empty --redis)");
  command->add_flag("--allow-remote", arguments->allow_remote, "Allow a --redis that is not on loopback");
  command->add_flag("--compare-sim", arguments->compare_sim, "Also simulate the same seeds and print both tables");
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
