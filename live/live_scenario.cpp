#include "live/live_scenario.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "live/redis_client.h"
#include "live/redis_server.h"
#include "live/time_scale.h"
#include "runner/cpu_time.h"
#include "runner/seed_run.h"
#include "scenario/fencing_modes.h"
#include "text/terminal_escape.h"

namespace locksim::live {
namespace {

// Below this a scaled duration is timed no better than the machine's scheduler allows.
constexpr std::int64_t kReliableNs = 5'000'000;

std::vector<std::string> scale_warnings(const scenario::Scenario& scenario, double scale) {
  const auto scaled_ns = [scale](sim::Duration duration) { return live::scaled(duration, scale).count(); };
  std::vector<std::string> lines;
  if (scenario.system.lock.lease && scaled_ns(*scenario.system.lock.lease) < kReliableNs * 4) {
    lines.push_back(fmt::format("warning: --time-scale {} makes the lease {}ms; below 20ms this machine's "
                                "scheduling can decide the outcome",
                                scale, scaled_ns(*scenario.system.lock.lease) / 1'000'000.0));
  }
  if (scaled_ns(scenario.system.service.request_timeout) < kReliableNs) {
    lines.push_back(fmt::format("warning: --time-scale {} makes the request timeout {}ms; below 5ms replies "
                                "may time out for no reason but the machine",
                                scale, scaled_ns(scenario.system.service.request_timeout) / 1'000'000.0));
  }
  return lines;
}

// A live run as a seed run, so that it is summed and judged exactly as a simulated one.
runner::SeedRun as_seed_run(const LiveRunResult& live, std::uint64_t seed, model::Fencing mode, double cpu_seconds) {
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

}  // namespace

std::vector<std::string> live_notices(const scenario::Scenario& scenario, const LiveScenarioRequest& request) {
  std::vector<std::string> lines;
  for (const std::string& line : faults_without_live_form(scenario, !request.redis)) {
    lines.push_back(fmt::format("{} — skipped, counted as not fired", line));
  }
  for (std::string& line : scale_warnings(scenario, request.time_scale)) lines.push_back(std::move(line));
  if (scenario.network.drop_probability > 0 || scenario.network.duplicate_probability > 0) {
    lines.push_back("/network: drop and duplicate probabilities have no live form (TCP neither loses nor repeats "
                    "bytes) — the runs go without them");
  }
  return lines;
}

LiveScenarioResult run_live_scenario(const scenario::Scenario& scenario, const LiveScenarioRequest& request) {
  if (const std::string why = live_unsupported(scenario); !why.empty()) {
    throw LiveRefusal(fmt::format("{}: {}", scenario.file, why));
  }
  const std::vector<model::Fencing> modes = request.modes.empty() ? scenario.fencing_modes : request.modes;
  const int instances = live::lock_instance_count(scenario);
  const std::string redis =
      request.redis ? fmt::format("{}:{}", text::terminal_escaped(request.redis->host), request.redis->port) : "";
  if (request.redis && instances > 1) {
    throw LiveRefusal(fmt::format("--redis {}: {} has a Redlock service of {} instances, which live mode starts itself "
                                  "(--redis names one server)",
                                  redis, scenario.file, instances));
  }
  const bool own_lock_servers = !request.redis;
  const bool consensus = scenario.system.service.kind == model::ServiceKind::kConsensus;
  if (consensus && request.redis) {
    throw LiveRefusal(fmt::format("--redis {}: {} has a consensus service, an etcd cluster live mode starts itself",
                                  redis, scenario.file));
  }
  if (consensus && request.time_scale != 1.0) {
    throw LiveRefusal(fmt::format("--time-scale {}: {} has a consensus service, which runs live at time scale 1 "
                                  "(etcd's session TTLs are whole seconds, and its timing is its own)",
                                  request.time_scale, scenario.file));
  }

  // The lock service: the user's server, or our own (Redlock: N of them,
  // each with the scenario's persistence; a redis-failover cluster is
  // started for each run, by the run); storage is always our own.
  const bool failover = scenario.system.service.kind == model::ServiceKind::kRedisFailover;
  if (failover && !own_lock_servers) {
    throw LiveRefusal(fmt::format("--redis {}: a redis-failover scenario runs on a primary, a replica and a Sentinel "
                                  "of locksim's own (the failover kills or cuts off the primary)",
                                  redis));
  }
  std::vector<std::unique_ptr<RedisServer>> own_lock_servers_started;
  std::vector<Endpoint> lock_instances;
  if (!own_lock_servers) {
    lock_instances.push_back(*request.redis);
    RedisClient client{request.redis->host, request.redis->port};
    const std::int64_t keys = client.command({"DBSIZE"}).integer;
    if (keys > 0 && request.prefix.empty()) {
      throw LiveRefusal(fmt::format("--redis {}: the database holds {} keys; give --prefix P to run beside them "
                                    "(every key locksim makes starts with P, and it deletes only those)",
                                    redis, keys));
    }
  } else if (!failover && !consensus) {
    for (int index = 0; index < instances; ++index) {
      own_lock_servers_started.push_back(std::make_unique<RedisServer>(server_persistence(scenario)));
      lock_instances.push_back({own_lock_servers_started.back()->host(), own_lock_servers_started.back()->port()});
    }
  }
  RedisServer own_storage;

  LiveRunSettings settings;
  settings.time_scale = request.time_scale;
  settings.ready_timeout = request.ready_timeout;
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
  summary.seed_count = static_cast<std::uint64_t>(request.runs);
  for (const model::Fencing mode : modes) {
    runner::ModeSummary total = runner::empty_mode_summary(mode, scenario.faults.size());
    for (int run = 0; run < request.runs; ++run) {
      settings.seed = first_seed + static_cast<std::uint64_t>(run);
      settings.prefix = fmt::format("{}locksim:{}:{}:{}:", request.prefix, getpid(), settings.seed,
                                    scenario::fencing_mode_name(mode));
      // locksim's own CPU (the coordinator); the workers and servers are processes of their own.
      const double cpu_started = runner::process_cpu_seconds();
      const LiveRunResult result = run_live(scenario, mode, settings);
      if (request.on_history) request.on_history(settings.seed, mode, result.history);
      if (request.on_notice) {
        for (const std::string& notice : result.notices) request.on_notice(settings.seed, mode, notice);
      }
      summary.wall_seconds += result.wall_seconds;
      runner::add_run(total, as_seed_run(result, settings.seed, mode, runner::process_cpu_seconds() - cpu_started),
                      fmt::format("locksim live {} --runs 1 --fencing {} (seed {})", scenario.file,
                                  mode == model::Fencing::kOn ? "on" : "off", settings.seed));
    }
    summary.modes.push_back(std::move(total));
  }
  // A fault with no live form never fires live: that alone does not make the run inert.
  summary.allow_inert = scenario.allow_inert || !faults_without_live_form(scenario, own_lock_servers).empty();
  summary.expectations = runner::expectations_for(scenario, summary.modes);
  runner::judge(summary);

  std::string where;
  for (const Endpoint& instance : lock_instances) {
    where += fmt::format("{}{}:{}", where.empty() ? "" : ", ", text::terminal_escaped(instance.host), instance.port);
  }
  std::string against =
      consensus ? fmt::format("an etcd cluster of {} started for each run",
                              scenario.system.service.nodes == 1 ? std::string{"1 member"}
                                                                 : fmt::format("{} members", scenario.system.service.nodes))
      : failover ? std::string{"a primary, a replica and redis-sentinel started for each run"}
               : fmt::format("{} at {}", instances > 1 ? fmt::format("{} redis-servers (Redlock)", instances) : "redis-server",
                             where);
  return {std::move(summary), std::move(against)};
}

}  // namespace locksim::live
