#include "scenario/scenario_parser.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "scenario/client_presets.h"
#include "scenario/content_hash.h"
#include "scenario/did_you_mean.h"
#include "scenario/fencing_modes.h"
#include "scenario/plan.h"
#include "scenario/scenario_limits.h"
#include "scenario/scenario_reference.h"
#include "scenario/seed_limits.h"
#include "scenario/setting_warnings.h"
#include "model/consensus_member.h"
#include "model/redlock_service.h"
#include "sim/duration_text.h"
#include "vocabulary/setup_name.h"
#include "vocabulary/worker_name.h"

namespace locksim::scenario {
namespace {

using nlohmann::json;

std::string did_you_mean(std::string_view wrong, const std::vector<std::string>& candidates) {
  const std::string best = nearest_candidate(wrong, candidates);
  return best.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", best);
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t index = 0; index < names.size(); ++index) {
    text += fmt::format("{}\"{}\"", index == 0 ? "" : index + 1 == names.size() ? " or " : ", ", names[index]);
  }
  return text;
}

// A short rendering of what the user wrote, for "got …".
std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 60) {
    text = text.substr(0, 57) + "...";
  }
  return text;
}

// Walks the document keeping the JSON path, and turns every problem into a
// ScenarioError that names file, path and expectation.
class Reader {
 public:
  explicit Reader(std::string file) : file_{std::move(file)} {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw ScenarioError(fmt::format("{}: {}: {}", file_, path.empty() ? "/" : path, what));
  }
  [[noreturn]] void expected(const std::string& path, std::string_view expectation, const json& got) const {
    fail(path, fmt::format("expected {}, got {}", expectation, shown(got)));
  }

  // The members of an object, checked against `allowed`.
  void require_object(const json& value, const std::string& path, const std::vector<std::string>& allowed) const {
    if (!value.is_object()) {
      expected(path, "an object", value);
    }
    for (const auto& [key, member] : value.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(path + "/" + key, fmt::format("unknown key \"{}\"{}; expected one of {}", key, did_you_mean(key, allowed),
                                           quoted_list(allowed)));
      }
    }
  }

  // A string of at most `longest` bytes.
  std::string string(const json& value, const std::string& path, std::size_t longest = kLongestName) const {
    if (!value.is_string()) expected(path, "a string", value);
    std::string text = value.get<std::string>();
    if (text.size() > longest) {
      fail(path, fmt::format("expected a string of at most {} bytes, got one of {}", longest, text.size()));
    }
    return text;
  }

  // A string the history records as a name (a lock, a storage key), which
  // the history format requires to be non-empty: refused here, as bad input,
  // not later as a history the checker rejects.
  std::string name(const json& value, const std::string& path) const {
    std::string text = string(value, path);
    if (text.empty()) fail(path, "expected a non-empty string (the history names it, and a name may not be empty)");
    return text;
  }

  bool boolean(const json& value, const std::string& path) const {
    if (!value.is_boolean()) expected(path, "true or false", value);
    return value.get<bool>();
  }

  std::int64_t integer(const json& value, const std::string& path, std::int64_t min, std::int64_t max) const {
    const std::string expectation = fmt::format("a whole number from {} to {}", min, max);
    if (!value.is_number_integer()) expected(path, expectation, value);
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      expected(path, expectation, value);
    }
    const auto number = value.get<std::int64_t>();
    if (number < min || number > max) expected(path, expectation, value);
    return number;
  }

  double probability(const json& value, const std::string& path) const {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0.0 ||
        value.get<double>() > 1.0) {
      expected(path, "a probability from 0 to 1", value);
    }
    return value.get<double>();
  }

  template <class Enum>
  Enum choice(const json& value, const std::string& path, const std::vector<std::pair<std::string, Enum>>& options) const {
    std::vector<std::string> names;
    for (const auto& option : options) names.push_back(option.first);
    if (value.is_string()) {
      for (const auto& [name, result] : options) {
        if (value.get<std::string>() == name) return result;
      }
      expected(path, fmt::format("one of {}{}", quoted_list(names), did_you_mean(value.get<std::string>(), names)),
               value);
    }
    expected(path, fmt::format("one of {}", quoted_list(names)), value);
  }

  Duration duration(const json& value, const std::string& path, bool allow_negative = false) const {
    constexpr std::string_view kExpectation = "a duration like \"45s\" (or a number of milliseconds)";
    sim::DurationParse parsed;
    if (value.is_number()) {
      parsed = sim::duration_from_milliseconds(value.get<double>());
    } else if (value.is_string()) {
      parsed = sim::parse_duration(value.get<std::string>());
    } else {
      expected(path, kExpectation, value);
    }
    if (!parsed.duration) {
      if (value.is_string()) fail(path, parsed.error);
      expected(path, kExpectation, value);
    }
    if (!allow_negative && *parsed.duration < Duration::zero()) {
      expected(path, fmt::format("{} that is not negative", kExpectation), value);
    }
    if (*parsed.duration > kLongestDuration || *parsed.duration < -kLongestDuration) {
      expected(path, fmt::format("a duration of at most {}{}", kLongestDurationText, allow_negative ? " either way" : ""),
               value);
    }
    return *parsed.duration;
  }

  Distribution distribution(const json& value, const std::string& path) const {
    if (!value.is_object()) {
      return Distribution::constant(duration(value, path));
    }
    if (!value.contains("dist")) {
      fail(path, "expected a duration or {\"dist\": \"uniform\" | \"exponential\" | \"lognormal\" | \"pareto\", ...}");
    }
    const std::string kind = choice<std::string>(value["dist"], path + "/dist",
                                                 {{"uniform", "uniform"},
                                                  {"exponential", "exponential"},
                                                  {"lognormal", "lognormal"},
                                                  {"pareto", "pareto"}});
    auto member = [&](const char* key) -> Duration {
      if (!value.contains(key)) fail(path, fmt::format("a {} distribution needs \"{}\"", kind, key));
      return duration(value[key], path + "/" + key);
    };
    Distribution::Shape shape;
    if (kind == "uniform") {
      require_object(value, path, {"dist", "min", "max"});
      shape = Distribution::Uniform{member("min"), member("max")};
    } else if (kind == "exponential") {
      require_object(value, path, {"dist", "mean"});
      shape = Distribution::Exponential{member("mean")};
    } else if (kind == "lognormal") {
      require_object(value, path, {"dist", "median", "p99"});
      shape = Distribution::LogNormal{member("median"), member("p99")};
    } else {
      require_object(value, path, {"dist", "min", "alpha"});
      if (!value.contains("alpha") || !value["alpha"].is_number()) {
        fail(path + "/alpha", "expected a positive number");
      }
      shape = Distribution::Pareto{member("min"), value["alpha"].get<double>()};
    }
    const std::string problem = Distribution::validate(shape);
    if (!problem.empty()) {
      fail(path, fmt::format("not a valid {} distribution: {}", kind, problem));
    }
    return Distribution{shape};
  }

 private:
  std::string file_;
};

template <class Function>
void with_member(const json& object, const char* key, Function&& read) {
  if (object.contains(key)) read(object[key]);
}

// The Redis keys on eviction: maxmemory_policy, maxmemory_samples, other_keys, other_keys_ttl.
void read_memory(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/service";
  model::RedisMemoryOptions& memory = scenario.system.service.memory;
  const bool redis = scenario.system.service.kind != model::ServiceKind::kConsensus;
  for (const char* key : {"maxmemory_policy", "maxmemory_samples", "other_keys", "other_keys_ttl"}) {
    if (value.contains(key) && !redis) {
      reader.fail(path + "/" + key, fmt::format("\"{}\" goes with a Redis service (redis, redis-failover, redlock)", key));
    }
  }
  with_member(value, "maxmemory_policy", [&](const json& v) {
    memory.policy = reader.choice<model::MaxmemoryPolicy>(v, path + "/maxmemory_policy",
                                                         {{"noeviction", model::MaxmemoryPolicy::kNoEviction},
                                                          {"volatile-ttl", model::MaxmemoryPolicy::kVolatileTtl},
                                                          {"volatile-lru", model::MaxmemoryPolicy::kVolatileLru},
                                                          {"allkeys-lru", model::MaxmemoryPolicy::kAllkeysLru}});
  });
  with_member(value, "maxmemory_samples", [&](const json& v) {
    memory.samples = static_cast<int>(reader.integer(v, path + "/maxmemory_samples", 1, 64));  // Redis's own limits
  });
  with_member(value, "other_keys",
              [&](const json& v) { memory.other_keys = static_cast<int>(reader.integer(v, path + "/other_keys", 0, 1'000'000)); });
  with_member(value, "other_keys_ttl", [&](const json& v) {
    if (v.is_string() && v.get<std::string>() == "none") {
      memory.other_keys_ttl = std::nullopt;
    } else {
      memory.other_keys_ttl = reader.duration(v, path + "/other_keys_ttl");
      if (*memory.other_keys_ttl == Duration::zero()) {
        reader.expected(path + "/other_keys_ttl", "a positive duration or \"none\"", v);
      }
    }
  });
}

// service.nodes, heartbeat and election_timeout: a consensus ensemble's, checked as etcd checks its flags.
void read_ensemble(const Reader& reader, const json& value, model::ServiceOptions& service) {
  const std::string path = "/service";
  const auto ensemble_only = [&](const char* key) {
    if (service.kind != model::ServiceKind::kConsensus) {
      reader.fail(path + "/" + key, fmt::format("\"{}\" goes with kind \"consensus\"", key));
    }
  };
  with_member(value, "nodes", [&](const json& v) {
    ensemble_only("nodes");
    service.nodes = static_cast<int>(reader.integer(v, path + "/nodes", 1, 9));
  });
  for (const char* key : {"heartbeat", "election_timeout"}) {
    with_member(value, key, [&](const json& v) {
      ensemble_only(key);
      if (service.nodes == 1) {
        reader.fail(path + "/" + key, fmt::format("\"{}\" times an ensemble's leader; service.nodes is 1", key));
      }
      const Duration length = reader.duration(v, path + "/" + key);
      (std::string_view{key} == "heartbeat" ? service.heartbeat : service.election_timeout) = length;
    });
  }
  if (service.heartbeat < Duration::milliseconds(1)) {
    reader.fail(path + "/heartbeat", "expected at least 1ms (etcd's --heartbeat-interval is whole milliseconds)");
  }
  // etcd refuses to start otherwise (embed/config.go, Validate).
  if (service.election_timeout < service.heartbeat * 5) {
    reader.fail(path + "/election_timeout", fmt::format("expected at least 5 heartbeats ({}), as etcd requires",
                                                        sim::format_duration(service.heartbeat * 5)));
  }
  if (service.election_timeout >= Duration::seconds(50)) {
    reader.fail(path + "/election_timeout", "expected less than 50s, as etcd requires");
  }
}

// An etcd lease is whole seconds, and no shorter than etcd's minimum TTL.
void check_lease_for_ensemble(const Reader& reader, const Scenario& scenario) {
  const model::ServiceOptions& service = scenario.system.service;
  const std::optional<Duration> lease = scenario.system.lock.lease;
  if (service.kind != model::ServiceKind::kConsensus || service.nodes == 1 || !lease) return;
  const Duration shortest = model::etcd_min_lease_ttl(service.heartbeat, service.election_timeout);
  if (lease->count_ns() % Duration::seconds(1).count_ns() != 0 || *lease < shortest) {
    reader.fail("/lock/lease",
                fmt::format("an etcd lease is whole seconds, at least {} with these timings (1.5 election timeouts, "
                            "rounded up); got {}",
                            sim::format_duration(shortest), sim::format_duration(*lease)));
  }
}

void read_service(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/service";
  if (value.is_object() && value.contains("promotion")) {
    // Removed deliberately: a fixed promotion time hid what Sentinel does (docs/models.md).
    reader.fail(path + "/promotion",
                "\"promotion\" is no longer a setting: Sentinel's own steps time the promotion (docs/models.md, redis-failover)");
  }
  reader.require_object(value, path,
                        {"kind", "instances", "persistence", "replication_lag", "drift_factor", "recheck_elapsed",
                         "delayed_restart", "lock_delay", "request_timeout", "down_after",
                         "min_replicas_to_write", "min_replicas_max_lag", "repl_diskless_sync_delay", "maxmemory_policy", "maxmemory_samples", "other_keys",
                         "other_keys_ttl", "etcd_3_4_3_lock_bug", "nodes", "heartbeat", "election_timeout"});
  model::ServiceOptions& service = scenario.system.service;
  with_member(value, "kind", [&](const json& v) {
    service.kind = reader.choice<model::ServiceKind>(v, path + "/kind",
                                                     {{vocabulary::service_kind::kRedis, model::ServiceKind::kRedis},
                                                      {vocabulary::service_kind::kRedisFailover, model::ServiceKind::kRedisFailover},
                                                      {vocabulary::service_kind::kRedlock, model::ServiceKind::kRedlock},
                                                      {vocabulary::service_kind::kConsensus, model::ServiceKind::kConsensus}});
  });
  with_member(value, "instances", [&](const json& v) {
    if (service.kind != model::ServiceKind::kRedlock) {
      reader.fail(path + "/instances", "\"instances\" goes with kind \"redlock\"");
    }
    // One instance is not a Redlock: no majority to lose.
    service.instances = static_cast<int>(reader.integer(v, path + "/instances", 2, 99));
  });
  with_member(value, "persistence", [&](const json& v) {
    service.persistence = reader.choice<model::Persistence>(v, path + "/persistence",
                                                           {{"none", model::Persistence::kNone},
                                                            {"everysec", model::Persistence::kEverySecond},
                                                            {"always", model::Persistence::kAlways}});
  });
  with_member(value, "replication_lag",
              [&](const json& v) { service.replication_lag = reader.distribution(v, path + "/replication_lag"); });
  with_member(value, "drift_factor", [&](const json& v) { service.drift_factor = reader.probability(v, path + "/drift_factor"); });
  with_member(value, "recheck_elapsed",
              [&](const json& v) { service.recheck_elapsed = reader.boolean(v, path + "/recheck_elapsed"); });
  with_member(value, "delayed_restart",
              [&](const json& v) { service.delayed_restart = reader.duration(v, path + "/delayed_restart"); });
  with_member(value, "lock_delay", [&](const json& v) { service.lock_delay = reader.duration(v, path + "/lock_delay"); });
  with_member(value, "request_timeout", [&](const json& v) {
    // "none": the client waits for a reply as long as it takes (redis-py's and ioredis's default).
    const bool none = v.is_string() && v.get<std::string>() == "none";
    service.request_timeout = none ? Duration::max() : reader.duration(v, path + "/request_timeout");
  });
  const auto failover_only = [&](const char* key) {
    if (service.kind != model::ServiceKind::kRedisFailover) {
      reader.fail(path + "/" + key, fmt::format("\"{}\" goes with kind \"redis-failover\"", key));
    }
  };
  with_member(value, "down_after", [&](const json& v) {
    failover_only("down_after");
    service.down_after = reader.duration(v, path + "/down_after");
  });
  with_member(value, "min_replicas_to_write", [&](const json& v) {
    failover_only("min_replicas_to_write");
    service.min_replicas_to_write = static_cast<int>(reader.integer(v, path + "/min_replicas_to_write", 0, 1));
  });
  with_member(value, "min_replicas_max_lag", [&](const json& v) {
    failover_only("min_replicas_max_lag");
    service.min_replicas_max_lag = reader.duration(v, path + "/min_replicas_max_lag");
    if (service.min_replicas_max_lag < Duration::seconds(1)) {
      reader.expected(path + "/min_replicas_max_lag",
                      "at least 1s (Redis's min-replicas-max-lag is whole seconds, and 0 turns it off)", v);
    }
  });
  with_member(value, "repl_diskless_sync_delay", [&](const json& v) {
    failover_only("repl_diskless_sync_delay");
    service.repl_diskless_sync_delay = reader.duration(v, path + "/repl_diskless_sync_delay");
  });
  read_memory(reader, value, scenario);
  with_member(value, "etcd_3_4_3_lock_bug", [&](const json& v) {
    if (service.kind != model::ServiceKind::kConsensus) {
      reader.fail(path + "/etcd_3_4_3_lock_bug", "\"etcd_3_4_3_lock_bug\" goes with kind \"consensus\"");
    }
    service.etcd_3_4_3_lock_bug = reader.boolean(v, path + "/etcd_3_4_3_lock_bug");
  });
  read_ensemble(reader, value, service);
}

void read_lock(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/lock";
  reader.require_object(value, path, {"name", "lease", "stuck_after"});
  model::LockOptions& lock = scenario.system.lock;
  with_member(value, "name", [&](const json& v) { lock.name = reader.name(v, path + "/name"); });
  with_member(value, "lease", [&](const json& v) {
    if (v.is_string() && v.get<std::string>() == "none") {
      lock.lease = std::nullopt;
    } else {
      lock.lease = reader.duration(v, path + "/lease");
      scenario.lease_given_as_number = v.is_number();
      if (*lock.lease == Duration::zero()) reader.expected(path + "/lease", "a positive duration or \"none\"", v);
    }
  });
  lock.stuck_after = default_stuck_after(lock.lease);
  with_member(value, "stuck_after", [&](const json& v) { lock.stuck_after = reader.duration(v, path + "/stuck_after"); });
}

// workers.command: the program and its arguments, as exec takes them (no shell).
std::vector<std::string> read_worker_command(const Reader& reader, const json& value, const std::string& path) {
  const std::string expectation =
      fmt::format("a list of 1 to {} strings: the program and its arguments, e.g. [\"python3\", \"worker.py\"]",
                  kMostCommandWords);
  if (!value.is_array() || value.empty() || value.size() > kMostCommandWords) reader.expected(path, expectation, value);
  std::vector<std::string> words;
  for (std::size_t index = 0; index < value.size(); ++index) {
    const std::string word_path = fmt::format("{}/{}", path, index);
    std::string word = reader.string(value[index], word_path, kLongestCommandWord);
    if (word.find('\0') != std::string::npos) reader.fail(word_path, "a command word cannot hold a NUL character");
    if (index == 0 && word.empty()) reader.expected(word_path, "the program to run (a name on PATH or a path)", value[index]);
    words.push_back(std::move(word));
  }
  return words;
}

void read_workers(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/workers";
  reader.require_object(value, path,
                        {"count", "acquire", "release", "renew", "renew_every", "check_before_write", "check_to_write", "retry", "work",
                         "between", "start", "wait_replicas", "clock", "acquire_timeout", "max_tries",
                         "renew_command", "renew_on_error", "renew_retries", "renew_retry_delay", "sentinel_discovery",
                         "command", "client"});
  model::WorkerOptions& workers = scenario.system.workers;
  with_member(value, "count", [&](const json& v) { workers.count = static_cast<int>(reader.integer(v, path + "/count", 1, 1000)); });
  with_member(value, "acquire", [&](const json& v) {
    workers.acquire = reader.choice<model::AcquireMethod>(v, path + "/acquire",
                                                         {{"set-nx-px", model::AcquireMethod::kSetNxPx},
                                                          {"get-then-set", model::AcquireMethod::kGetThenSet}});
  });
  with_member(value, "release", [&](const json& v) {
    workers.release = reader.choice<model::ReleaseMethod>(v, path + "/release",
                                                         {{"compare-and-delete", model::ReleaseMethod::kCompareAndDelete},
                                                          {"plain-del", model::ReleaseMethod::kPlainDelete},
                                                          {"none", model::ReleaseMethod::kNone}});
  });
  with_member(value, "renew", [&](const json& v) {
    workers.renew = reader.choice<model::RenewMethod>(v, path + "/renew", {{"none", model::RenewMethod::kNone},
                                                                           {"watchdog", model::RenewMethod::kWatchdog}});
  });
  with_member(value, "renew_every", [&](const json& v) {
    workers.renew_every = reader.duration(v, path + "/renew_every");
    // A watchdog that renews every 0 s would renew forever at one instant: the run could not advance.
    if (*workers.renew_every == Duration::zero()) reader.expected(path + "/renew_every", "a positive duration", v);
  });
  with_member(value, "renew_command", [&](const json& v) {
    workers.renew_command =
        reader.choice<model::RenewCommand>(v, path + "/renew_command",
                                           {{"compare-and-extend", model::RenewCommand::kCompareAndExtend},
                                            {"pexpire", model::RenewCommand::kPlainPexpire}});
  });
  with_member(value, "sentinel_discovery", [&](const json& v) {
    workers.sentinel_discovery = reader.choice<model::SentinelDiscovery>(
        v, path + "/sentinel_discovery",
        {{"switch-master", model::SentinelDiscovery::kSwitchMaster}, {"on-error", model::SentinelDiscovery::kOnError}});
  });
  with_member(value, "renew_on_error", [&](const json& v) {
    workers.renew_on_error = reader.choice<model::RenewOnError>(
        v, path + "/renew_on_error", {{"retry", model::RenewOnError::kRetry}, {"stop", model::RenewOnError::kStop}});
  });
  with_member(value, "renew_retries", [&](const json& v) {
    workers.renew_retries = static_cast<int>(reader.integer(v, path + "/renew_retries", 0, 100));
  });
  with_member(value, "renew_retry_delay",
              [&](const json& v) { workers.renew_retry_delay = reader.distribution(v, path + "/renew_retry_delay"); });
  with_member(value, "check_before_write",
              [&](const json& v) { workers.check_before_write = reader.boolean(v, path + "/check_before_write"); });
  with_member(value, "check_to_write",
              [&](const json& v) { workers.check_to_write = reader.distribution(v, path + "/check_to_write"); });
  with_member(value, "clock", [&](const json& v) {
    workers.clock = reader.choice<sim::ClockKind>(v, path + "/clock", {{"monotonic", sim::ClockKind::kMonotonic},
                                                                       {"wall", sim::ClockKind::kWall}});
  });
  with_member(value, "retry", [&](const json& v) { workers.retry = reader.distribution(v, path + "/retry"); });
  with_member(value, "work", [&](const json& v) { workers.work = reader.distribution(v, path + "/work"); });
  with_member(value, "between", [&](const json& v) { workers.between = reader.distribution(v, path + "/between"); });
  with_member(value, "start", [&](const json& v) { workers.start = reader.distribution(v, path + "/start"); });
  with_member(value, "wait_replicas", [&](const json& v) {
    const std::string wait_path = path + "/wait_replicas";
    if (scenario.system.service.kind != model::ServiceKind::kRedisFailover) {
      reader.fail(wait_path, "\"wait_replicas\" goes with service kind \"redis-failover\"");
    }
    reader.require_object(v, wait_path, {"replicas", "timeout"});
    model::WaitReplicas wait;
    with_member(v, "replicas", [&](const json& r) { wait.replicas = static_cast<int>(reader.integer(r, wait_path + "/replicas", 1, 1)); });
    with_member(v, "timeout", [&](const json& t) {
      wait.timeout = reader.duration(t, wait_path + "/timeout");
      if (wait.timeout == Duration::zero()) reader.expected(wait_path + "/timeout", "a positive duration (0 would block forever)", t);
    });
    workers.wait_replicas = wait;
  });
  with_member(value, "acquire_timeout",
              [&](const json& v) { workers.acquire_timeout = reader.duration(v, path + "/acquire_timeout"); });
  with_member(value, "max_tries",
              [&](const json& v) { workers.max_tries = static_cast<int>(reader.integer(v, path + "/max_tries", 1, 1'000'000)); });
  with_member(value, "command", [&](const json& v) { scenario.worker_command = read_worker_command(reader, v, path + "/command"); });
}

void read_workload(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/workload";
  if (!value.is_object()) reader.expected(path, "an object", value);
  using namespace vocabulary::workload_kind;
  const std::string kind = value.contains("kind") ? reader.choice<std::string>(value["kind"], path + "/kind",
                                                                               {{kCounter, kCounter}, {kBilling, kBilling}, {kWriteOnly, kWriteOnly}})
                                                  : kCounter;
  if (kind == kCounter) {
    reader.require_object(value, path, {"kind", "key", "jobs"});
    model::CounterWorkload counter;
    with_member(value, "key", [&](const json& v) { counter.key = reader.name(v, path + "/key"); });
    with_member(value, "jobs", [&](const json& v) { counter.jobs = static_cast<int>(reader.integer(v, path + "/jobs", 1, 1'000'000)); });
    scenario.system.workload = counter;
  } else if (kind == kWriteOnly) {
    reader.require_object(value, path, {"kind", "key", "jobs"});
    model::WriteOnlyWorkload write_only;
    with_member(value, "key", [&](const json& v) { write_only.key = reader.name(v, path + "/key"); });
    with_member(value, "jobs",
                [&](const json& v) { write_only.jobs = static_cast<int>(reader.integer(v, path + "/jobs", 1, 1'000'000)); });
    scenario.system.workload = write_only;
  } else {
    reader.require_object(value, path, {"kind", "key", "customers", "charge", "idempotency_key"});
    model::BillingWorkload billing;
    with_member(value, "key", [&](const json& v) { billing.key = reader.name(v, path + "/key"); });
    with_member(value, "customers",
                [&](const json& v) { billing.customers = static_cast<int>(reader.integer(v, path + "/customers", 1, 1'000'000)); });
    with_member(value, "charge", [&](const json& v) {
      billing.charge = reader.choice<model::Charge>(
          v, path + "/charge", {{"storage", model::Charge::kStorage}, {"external", model::Charge::kExternal}});
    });
    with_member(value, "idempotency_key", [&](const json& v) {
      billing.idempotency_key = reader.choice<model::IdempotencyKey>(
          v, path + "/idempotency_key", {{"job", model::IdempotencyKey::kJob}, {"attempt", model::IdempotencyKey::kAttempt}});
    });
    scenario.system.workload = billing;
  }
}

void read_storage(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/storage";
  reader.require_object(value, path, {"fencing", "fence_reads", "validate", "idempotency_keys"});
  model::StorageOptions& storage = scenario.system.storage;
  with_member(value, "fencing", [&](const json& v) {
    std::vector<std::pair<std::string, std::vector<model::Fencing>>> options;
    for (const std::string& word : fencing_switch_words()) options.emplace_back(word, *fencing_modes_from_switch(word));
    scenario.fencing_modes = reader.choice<std::vector<model::Fencing>>(v, path + "/fencing", options);
  });
  with_member(value, "fence_reads", [&](const json& v) { storage.fence_reads = reader.boolean(v, path + "/fence_reads"); });
  with_member(value, "validate", [&](const json& v) {
    storage.validate = reader.choice<model::Validation>(
        v, path + "/validate", {{"max-seen", model::Validation::kMaxSeen}, {"service", model::Validation::kService}});
  });
  with_member(value, "idempotency_keys",
              [&](const json& v) { storage.idempotency_keys = reader.boolean(v, path + "/idempotency_keys"); });
}

void read_network(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/network";
  reader.require_object(value, path, {"delay", "drop", "duplicate", "partitions"});
  with_member(value, "delay", [&](const json& v) { scenario.network.delay = reader.distribution(v, path + "/delay"); });
  with_member(value, "drop", [&](const json& v) { scenario.network.drop_probability = reader.probability(v, path + "/drop"); });
  with_member(value, "duplicate",
              [&](const json& v) { scenario.network.duplicate_probability = reader.probability(v, path + "/duplicate"); });
  with_member(value, "partitions", [&](const json& v) {
    scenario.network.partition_effect = reader.choice<sim::PartitionEffect>(
        v, path + "/partitions", {{"tcp", sim::PartitionEffect::kTcpRetransmits}, {"drop", sim::PartitionEffect::kDrop}});
  });
}

std::string node_name(const Reader& reader, const json& value, const std::string& path, const std::vector<std::string>& nodes) {
  const std::string name = reader.string(value, path);
  if (std::find(nodes.begin(), nodes.end(), name) == nodes.end()) {
    reader.fail(path, fmt::format("unknown node \"{}\"{}; this scenario has {}", name, did_you_mean(name, nodes),
                                  quoted_list(nodes)));
  }
  return name;
}

AtRate read_rate(const Reader& reader, const json& value, const std::string& path, Duration run_duration,
                 double& expected_occurrences) {
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  const std::size_t slash = text.find('/');
  double count = 0;
  std::istringstream number{text.substr(0, slash)};
  const bool parsed = slash != std::string::npos && (number >> count) && number.eof() && std::isfinite(count) && count > 0;
  const std::string unit = slash == std::string::npos ? "" : text.substr(slash + 1);
  const std::map<std::string, double> per_minute{{"s", 60.0}, {"min", 1.0}, {"h", 1.0 / 60.0}};
  if (!parsed || !per_minute.contains(unit)) {
    reader.expected(path, "a rate like \"2/min\" (per s, min or h)", value);
  }
  const AtRate rate{count * per_minute.at(unit)};
  // Rarer than once a year is never within a run; its mean gap would not fit a duration either.
  const double slowest_per_minute = 60e9 / static_cast<double>(kLongestDuration.count_ns());
  if (rate.per_minute < slowest_per_minute) {
    reader.fail(path, fmt::format("{} is rarer than once in {}: expected a rate of at least 1/{}h", text,
                                  kLongestDurationText, kLongestDuration.count_ns() / 3'600'000'000'000));
  }
  // Each occurrence is planned before the run: a rate that plans millions of
  // them would make the run hang in planning, not fail.
  expected_occurrences += rate.per_minute * (static_cast<double>(run_duration.count_ns()) / 60e9);
  if (expected_occurrences > kMostExpectedRateOccurrences) {
    const bool alone = expected_occurrences == rate.per_minute * (static_cast<double>(run_duration.count_ns()) / 60e9);
    reader.fail(path, fmt::format("{} over the run's duration ({}) plans about {:.0f} fault occurrences{}; a run may "
                                  "plan at most {:.0f} (lower the rate or the duration)",
                                  text, sim::format_duration(run_duration), expected_occurrences,
                                  alone ? "" : " together with the rate faults before it", kMostExpectedRateOccurrences));
  }
  return rate;
}

// Reads a fault's own keys (model/fault.h) into its kind's parameters, and
// its `for` into the spec's length.
class FaultParamsReader {
 public:
  FaultParamsReader(const Reader& reader, const json& value, const std::string& path,
                    const std::vector<std::string>& nodes, Distribution& length)
      : reader_{reader}, value_{value}, path_{path}, nodes_{nodes}, length_{length} {}

  void operator()(model::faults::Pause&) const { read_length(); }
  void operator()(model::faults::StarveRenewal&) const { read_length(); }
  void operator()(model::faults::Crash& crash) const { read_restart(crash.restart_after); }
  void operator()(model::faults::PowerLoss& loss) const { read_restart(loss.restart_after); }
  void operator()(model::faults::MemoryPressure& pressure) const {
    with_member(value_, "evict", [&](const json& v) {
      pressure.evict = static_cast<int>(reader_.integer(v, path_ + "/evict", 1, 1'000'000));
    });
    // Without `for` the instance is relieved at once: the room freed, or (noeviction) the write that asked refused.
    length_ = value_.contains("for") ? reader_.distribution(value_["for"], path_ + "/for")
                                     : Distribution::constant(Duration::zero());
  }
  void operator()(model::faults::ClockJump& jump) const {
    jump.by = reader_.duration(required("by"), path_ + "/by", true);
  }
  void operator()(model::faults::ClockDrift& drift) const {
    drift.ppm = reader_.integer(required("ppm"), path_ + "/ppm", -400'000, 400'000);
  }
  void operator()(model::faults::DelaySpike& spike) const {
    spike.extra = reader_.duration(required("extra"), path_ + "/extra");
    read_length();
  }
  void operator()(model::faults::Partition& partition) const {
    const json& between = required("between");
    if (!between.is_array() || between.size() != 2 || !between[0].is_array() || !between[1].is_array() ||
        between[0].empty() || between[1].empty()) {
      reader_.expected(path_ + "/between", "two non-empty lists of node names", between);
    }
    for (std::size_t side = 0; side < 2; ++side) {
      std::vector<std::string>& names = side == 0 ? partition.side_a : partition.side_b;
      for (std::size_t index = 0; index < between[side].size(); ++index) {
        const std::vector<std::string> members = ensemble_members();
        if (between[side][index] == "consensus" && !members.empty()) {
          names.insert(names.end(), members.begin(), members.end());  // the whole ensemble
          continue;
        }
        names.push_back(
            node_name(reader_, between[side][index], fmt::format("{}/between/{}/{}", path_, side, index), nodes_));
      }
    }
    read_length();
  }
  void operator()(model::faults::Failover& failover) const {
    with_member(value_, "primary", [&](const json& v) {
      failover.primary = reader_.choice<model::FailoverPrimary>(
          v, path_ + "/primary",
          {{"crash", model::FailoverPrimary::kCrash}, {"partition", model::FailoverPrimary::kPartition}});
    });
    const bool split_brain = failover.primary == model::FailoverPrimary::kPartition;
    if (!split_brain && (value_.contains("with_primary") || value_.contains("for"))) {
      reader_.fail(path_ + (value_.contains("for") ? "/for" : "/with_primary"), "goes with \"primary\": \"partition\"");
    }
    if (!split_brain) return;
    if (!value_.contains("for")) reader_.fail(path_, "a failover with \"primary\": \"partition\" needs \"for\"");
    length_ = reader_.distribution(value_["for"], path_ + "/for");
    with_member(value_, "with_primary", [&](const json& v) {
      if (!v.is_array()) reader_.expected(path_ + "/with_primary", "a list of worker names", v);
      failover.with_primary.clear();
      for (std::size_t index = 0; index < v.size(); ++index) {
        const std::string item = fmt::format("{}/with_primary/{}", path_, index);
        const std::string name = node_name(reader_, v[index], item, nodes_);
        if (!vocabulary::is_worker(name)) reader_.fail(item, "with_primary lists workers");
        failover.with_primary.push_back(name);
      }
    });
  }

 private:
  const json& required(const char* key) const {
    if (!value_.contains(key)) {
      reader_.fail(path_, fmt::format("a {} fault needs \"{}\"", value_["kind"].get<std::string>(), key));
    }
    return value_[key];
  }
  void read_length() const { length_ = reader_.distribution(required("for"), path_ + "/for"); }
  void read_restart(std::optional<Duration>& restart_after) const {
    with_member(value_, "restart_after",
                [&](const json& v) { restart_after = reader_.duration(v, path_ + "/restart_after"); });
  }

  const Reader& reader_;
  const json& value_;
  const std::string& path_;
  // consensus-0, … when the service is an ensemble (`consensus` in a partition's side stands for them all).
  [[nodiscard]] std::vector<std::string> ensemble_members() const {
    std::vector<std::string> members;
    for (const std::string& node : nodes_) {
      if (node.starts_with("consensus-")) members.push_back(node);
    }
    return members;
  }

  const std::vector<std::string>& nodes_;
  Distribution& length_;
};

FaultSpec read_fault(const Reader& reader, const json& value, const std::string& path, const Scenario& scenario,
                     double& expected_rate_occurrences) {
  if (!value.is_object()) reader.expected(path, "an object", value);
  if (!value.contains("kind")) reader.fail(path, "a fault needs a \"kind\"");
  FaultSpec fault;
  std::vector<std::pair<std::string, FaultKind>> kinds;
  for (std::size_t at = 0; at < vocabulary::kFaultKindNames.size(); ++at) {
    kinds.emplace_back(vocabulary::kFaultKindNames[at], static_cast<FaultKind>(at));
  }
  fault.params = model::default_fault_params(reader.choice<FaultKind>(value["kind"], path + "/kind", kinds));
  std::vector<std::string> allowed{"kind", "target", "at", "when", "nth", "delay", "rate"};
  std::visit([&allowed](const auto& params) {
    const auto& keys = std::decay_t<decltype(params)>::kKeys;
    allowed.insert(allowed.end(), keys.begin(), keys.end());
  }, fault.params);
  reader.require_object(value, path, allowed);

  const std::vector<std::string> nodes = scenario_node_names(scenario);
  if (value.contains("target")) {
    const std::string name = reader.string(value["target"], path + "/target");
    if (name == "workers" || name == "service" || name == "any") {
      fault.target.group = name == "workers" ? TargetGroup::kWorkers : name == "service" ? TargetGroup::kService : TargetGroup::kAny;
    } else {
      std::vector<std::string> targets = nodes;
      const model::ServiceOptions& service = scenario.system.service;
      if (service.kind == model::ServiceKind::kConsensus && service.nodes > 1) targets.emplace_back(model::kConsensusLeader);
      fault.target.node = node_name(reader, value["target"], path + "/target", targets);
    }
  } else if (fault.kind() != FaultKind::kPartition && fault.kind() != FaultKind::kFailover) {
    reader.fail(path, "this fault needs a \"target\": a node name, \"workers\", \"service\" or \"any\"");
  }
  if (fault.kind() == FaultKind::kStarveRenewal && fault.target.group == TargetGroup::kNamed &&
      !vocabulary::is_worker(fault.target.node)) {
    reader.fail(path + "/target", "starve-renewal targets a worker");
  }
  if (fault.kind() == FaultKind::kMemoryPressure) {
    if (scenario.system.service.kind == model::ServiceKind::kConsensus) {
      reader.fail(path + "/kind", "memory-pressure acts on a Redis instance; service.kind \"consensus\" has none");
    }
    if (fault.target.group == TargetGroup::kNamed && fault.target.node.rfind("redis-", 0) != 0) {
      reader.fail(path + "/target", "memory-pressure targets a Redis instance (redis-0, ...) or \"service\"");
    }
  }
  if (fault.kind() == FaultKind::kFailover && scenario.system.service.kind != model::ServiceKind::kRedisFailover) {
    reader.fail(path + "/kind", "a failover needs service.kind \"redis-failover\"");
  }

  const int triggers = (value.contains("at") ? 1 : 0) + (value.contains("when") ? 1 : 0) + (value.contains("rate") ? 1 : 0);
  if (triggers != 1) {
    reader.fail(path, "expected exactly one trigger: \"at\", \"when\" or \"rate\"");
  }
  if (!value.contains("when") && (value.contains("nth") || value.contains("delay"))) {
    reader.fail(path, "\"nth\" and \"delay\" go with \"when\"");
  }
  if (value.contains("at")) {
    fault.trigger = AtTime{reader.duration(value["at"], path + "/at")};
  } else if (value.contains("rate")) {
    fault.trigger = read_rate(reader, value["rate"], path + "/rate", scenario.duration, expected_rate_occurrences);
  } else {
    OnEvent on_event;
    on_event.when = reader.choice<TriggerEvent>(value["when"], path + "/when",
                                                {{"after-acquire", TriggerEvent::kAfterAcquire},
                                                 {"before-write", TriggerEvent::kBeforeWrite},
                                                 {"after-grant", TriggerEvent::kAfterGrant},
                                                 {"before-reply", TriggerEvent::kBeforeReply},
                                                 {"before-charge", TriggerEvent::kBeforeCharge}});
    with_member(value, "nth", [&](const json& v) { on_event.nth = static_cast<int>(reader.integer(v, path + "/nth", 1, 1'000'000)); });
    with_member(value, "delay", [&](const json& v) { on_event.delay = reader.duration(v, path + "/delay"); });
    if (fault.target.group == TargetGroup::kNamed && fault.target.node.empty()) {
      reader.fail(path, "an event-triggered fault needs a \"target\": the node whose event triggers it");
    }
    if (fault.target.group != TargetGroup::kNamed && fault.target.group != TargetGroup::kWorkers &&
        on_event.when != TriggerEvent::kAfterGrant) {
      reader.fail(path + "/target", "an event-triggered fault needs a named target or \"workers\"");
    }
    fault.trigger = on_event;
  }

  std::visit(FaultParamsReader{reader, value, path, nodes, fault.length}, fault.params);
  return fault;
}

Bound read_bound(const Reader& reader, const json& value, const std::string& path) {
  constexpr std::string_view kExpectation =
      "a comparison on the total like \"==0\", \">0\", \"<5\", \">=1\" or \"<=3\", "
      "or on the share of runs like \"<=2%\" or \">50%\" (0 to 100, at most four decimals)";
  if (!value.is_string()) reader.expected(path, kExpectation, value);
  const std::optional<Bound> bound = parse_bound(value.get<std::string>());
  if (!bound) reader.expected(path, kExpectation, value);
  return *bound;
}

// `choices`: a `locksim verify` counterexample's deviations (scenario.h, ChoiceScript).
void read_choices(const Reader& reader, const json& value, Scenario& scenario) {
  reader.require_object(value, "/choices", {"anchors", "faults", "domain", "deviations"});
  ChoiceScript script;
  with_member(value, "anchors",
              [&](const json& v) { script.anchors = static_cast<int>(reader.integer(v, "/choices/anchors", 0, 100)); });
  with_member(value, "faults", [&](const json& v) {
    script.extra_faults = static_cast<int>(reader.integer(v, "/choices/faults", 0, 4));
  });
  with_member(value, "domain", [&](const json& v) {
    const std::string domain = reader.string(v, "/choices/domain");
    if (domain != "standard" && domain != "wide") reader.expected("/choices/domain", "\"standard\" or \"wide\"", v);
    script.wide_domain = domain == "wide";
  });
  with_member(value, "deviations", [&](const json& v) {
    if (!v.is_array()) reader.expected("/choices/deviations", "a list of deviations", v);
    for (std::size_t index = 0; index < v.size(); ++index) {
      const std::string path = fmt::format("/choices/deviations/{}", index);
      reader.require_object(v[index], path, {"at", "index", "site"});
      for (const char* key : {"at", "index", "site"}) {
        if (!v[index].contains(key)) reader.fail(path, fmt::format("a deviation needs \"{}\"", key));
      }
      ScriptedChoice choice;
      choice.position = static_cast<std::size_t>(reader.integer(v[index]["at"], path + "/at", 0, kLastChoicePosition));
      choice.index = static_cast<std::uint32_t>(reader.integer(v[index]["index"], path + "/index", 1, 1'000'000));
      choice.site = reader.string(v[index]["site"], path + "/site", kLongestDescription);
      if (!script.deviations.empty() && choice.position <= script.deviations.back().position) {
        reader.fail(path + "/at", "deviations must be in the order of their positions, each at most once");
      }
      script.deviations.push_back(std::move(choice));
    }
  });
  scenario.choices = std::move(script);
}

void read_expect(const Reader& reader, const json& value, Scenario& scenario) {
  const std::string path = "/expect";
  std::vector<std::string> modes;
  for (const model::Fencing fencing : {model::Fencing::kOff, model::Fencing::kOn}) {
    modes.emplace_back(fencing_mode_name(fencing));
  }
  modes.emplace_back("any");
  reader.require_object(value, path, modes);
  std::vector<std::string> measures;
  for (const Measure& measure : all_measures()) measures.emplace_back(measure_name(measure));
  for (const auto& [mode_name, checks] : value.items()) {
    const std::string mode_path = path + "/" + mode_name;
    reader.require_object(checks, mode_path, measures);
    for (const auto& [name, bound] : checks.items()) {
      Expectation expectation;
      expectation.mode = fencing_from_mode_name(mode_name);  // nullopt for "any"
      expectation.measure = *measure_from_name(name);       // require_object allowed only these names
      expectation.bound = read_bound(reader, bound, mode_path + "/" + name);
      scenario.expect.push_back(expectation);
    }
  }
}

// `format_version`: 1 (before 0.2.0) up to the current one; a newer file is
// refused, since its keys or its verdicts may mean what this binary does not know.
int read_format_version(const Reader& reader, const json& value) {
  const std::string path = "/format_version";
  const std::string expectation = fmt::format("a format version: a whole number from 1 to {}", kCurrentFormatVersion);
  if (!value.is_number_integer()) reader.expected(path, expectation, value);
  const bool above = value.is_number_unsigned() ? value.get<std::uint64_t>() > kCurrentFormatVersion
                                                : value.get<std::int64_t>() > kCurrentFormatVersion;
  if (above) {
    reader.fail(path, fmt::format("written for format version {}, but this locksim reads versions 1 to {}; "
                                  "use a newer locksim (CHANGELOG.md says what changed)",
                                  value.dump(), kCurrentFormatVersion));
  }
  if (value.get<std::int64_t>() < 1) reader.expected(path, expectation, value);
  return static_cast<int>(value.get<std::int64_t>());
}

// "file:LINE:COLUMN: not valid JSON (…)" from nlohmann's byte offset.
std::string line_and_column(std::string_view text, std::size_t offset);

[[noreturn]] void fail_syntax(std::string_view text, const std::string& file, const json::parse_error& error) {
  // nlohmann says "[json.exception.parse_error.101] parse error at line L, column C: <reason>".
  std::string reason = error.what();
  if (const std::size_t column = reason.find("column"); column != std::string::npos) {
    if (const std::size_t colon = reason.find(": ", column); colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  throw ScenarioError(fmt::format("{}:{}: expected a JSON scenario, but the JSON is malformed ({})", file,
                                  line_and_column(text, error.byte == 0 ? 0 : error.byte - 1), reason));
}

// Where `offset` lies in `text`, as "LINE:COLUMN" (both from 1).
std::string line_and_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const auto before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n');
  const std::size_t column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return fmt::format("{}:{}", line, column);
}

// A scenario is at most a few levels deep; refusing deeper documents up front
// keeps every later step (and its recursion) on safe ground.
void check_nesting(std::string_view text, const std::string& file) {
  constexpr int kMaxDepth = kDeepestNesting;
  int depth = 0;
  bool in_string = false;
  for (std::size_t offset = 0; offset < text.size(); ++offset) {
    const char c = text[offset];
    if (in_string) {
      if (c == '\\') {
        ++offset;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) {
        throw ScenarioError(fmt::format("{}:{}: expected a JSON scenario nested at most {} levels deep", file,
                                        line_and_column(text, offset), kMaxDepth));
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

// JSON keeps the last of two equal keys in one object, so
// {"lock":{"lease":"1s"},"lock":{"lease":"60s"}} would silently run with
// 60 s. The parser's callback sees every key as it is read: a repeated one
// is refused with its JSON pointer.
class RepeatedKeys {
 public:
  explicit RepeatedKeys(const std::string& file) : file_{file} {}

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        frames_.push_back(Frame{event == json::parse_event_t::array_start, child_pointer(), {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& object = frames_.back();
        const std::string key = parsed.get<std::string>();
        if (!object.keys.insert(key).second) {
          throw ScenarioError(fmt::format("{}: {}/{}: the key \"{}\" is given twice in one object; JSON would keep "
                                          "only the last, so give it once",
                                          file_, object.pointer, escaped(key), key));
        }
        key_ = key;
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        [[fallthrough]];
      case json::parse_event_t::value:
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().next_index;
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_array = false;
    std::string pointer;
    std::set<std::string> keys;
    std::size_t next_index = 0;
  };
  // A JSON pointer token: "~" and "/" escaped.
  static std::string escaped(const std::string& key) {
    std::string token;
    for (const char c : key) token += c == '~' ? std::string{"~0"} : c == '/' ? std::string{"~1"} : std::string(1, c);
    return token;
  }
  // The pointer of the container that begins now.
  [[nodiscard]] std::string child_pointer() const {
    if (frames_.empty()) return "";
    const Frame& parent = frames_.back();
    return parent.pointer + "/" + (parent.is_array ? std::to_string(parent.next_index) : escaped(key_));
  }

  const std::string& file_;
  std::vector<Frame> frames_;
  std::string key_;
};

}  // namespace

// workers.client: the library's own settings go in first, for every key
// the file leaves out (client_presets.h); then the file is read as usual.
void fill_in_client_preset(const Reader& reader, json& document) {
  if (!document.is_object() || !document.contains("workers") || !document["workers"].is_object()) return;
  const json& workers = document["workers"];
  const auto client = workers.find("client");
  if (client == workers.end()) return;
  const std::string path = "/workers/client";
  if (!client->is_string()) reader.expected(path, fmt::format("one of {}", client_preset_names()), *client);
  const ClientPreset* preset = find_client_preset(client->get<std::string>());
  if (preset == nullptr) {
    reader.fail(path, fmt::format("expected one of {}, got \"{}\" (`locksim explain /workers/client` lists what each sets)",
                                  client_preset_names(), client->get<std::string>()));
  }
  if (const std::string why = scenario::apply_client_preset(*preset, document); !why.empty()) reader.fail(path, why);
}

Scenario parse_scenario(std::string_view text, const std::string& file) {
  const Reader reader{file};
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw ScenarioError(fmt::format("{}: the file is empty; expected a JSON scenario object", file));
  }
  if (text.size() > kLargestScenarioFile) {
    throw ScenarioError(fmt::format("{}: the file is larger than {} MiB ({} bytes), the most a scenario file may have",
                                    file, kLargestScenarioFile >> 20, kLargestScenarioFile));
  }
  check_nesting(text, file);
  json document;
  try {
    document = json::parse(text, RepeatedKeys{file});
  } catch (const json::parse_error& error) {
    fail_syntax(text, file, error);
  } catch (const json::out_of_range& error) {
    // A number too large for a double (9e759) is valid JSON text that
    // nlohmann refuses with out_of_range, not parse_error (found by fuzzing).
    std::string reason = error.what();
    if (const std::size_t end = reason.find("] "); end != std::string::npos) reason = reason.substr(end + 2);
    throw ScenarioError(fmt::format("{}: expected a JSON scenario, but a number in it is out of range ({})", file, reason));
  }
  // The version first: a file from a newer locksim may use keys this one does not know.
  int format_version = kCurrentFormatVersion;
  if (document.is_object() && document.contains("format_version")) {
    format_version = read_format_version(reader, document["format_version"]);
  }
  fill_in_client_preset(reader, document);
  reader.require_object(document, "",
                        {"format_version", "name", "description", "duration", "seeds", "first_seed", "service", "lock", "workers", "workload", "storage",
                         "network", "clocks", "faults", "swarm", "expect", "allow_inert", "probes_required", "choices"});
  Scenario scenario;
  scenario.file = file;
  scenario.content_hash = content_hash(text);
  scenario.format_version = format_version;
  if (!document.contains("name")) reader.fail("/name", "a scenario needs a \"name\"");
  scenario.name = reader.string(document["name"], "/name");
  if (scenario.name.empty()) reader.expected("/name", "a non-empty name", document["name"]);
  with_member(document, "description",
              [&](const json& v) { scenario.description = reader.string(v, "/description", kLongestDescription); });
  with_member(document, "duration", [&](const json& v) {
    scenario.duration = reader.duration(v, "/duration");
    if (scenario.duration == Duration::zero()) reader.expected("/duration", "a positive duration", v);
  });
  with_member(document, "seeds", [&](const json& v) { scenario.seeds = static_cast<int>(reader.integer(v, "/seeds", kFewestSeeds, kMostSeeds)); });
  with_member(document, "first_seed", [&](const json& v) {
    scenario.first_seed =
        static_cast<std::uint64_t>(reader.integer(v, "/first_seed", 0, kLargestFirstSeed));
  });
  // The service first: it decides the node names that faults may target.
  with_member(document, "service", [&](const json& v) { read_service(reader, v, scenario); });
  with_member(document, "lock", [&](const json& v) { read_lock(reader, v, scenario); });
  check_lease_for_ensemble(reader, scenario);
  if (!document.contains("lock")) {
    scenario.system.lock.stuck_after = default_stuck_after(scenario.system.lock.lease);
  }
  with_member(document, "workers", [&](const json& v) { read_workers(reader, v, scenario); });
  with_member(document, "workload", [&](const json& v) { read_workload(reader, v, scenario); });
  with_member(document, "storage", [&](const json& v) { read_storage(reader, v, scenario); });
  with_member(document, "network", [&](const json& v) { read_network(reader, v, scenario); });
  with_member(document, "clocks", [&](const json& v) {
    reader.require_object(v, "/clocks", {"drift_ppm"});
    with_member(v, "drift_ppm", [&](const json& ppm) { scenario.drift_ppm = reader.integer(ppm, "/clocks/drift_ppm", 0, 400'000); });
  });
  with_member(document, "faults", [&](const json& v) {
    if (!v.is_array()) reader.expected("/faults", "a list of faults", v);
    if (v.size() > kMostFaultEntries) {
      reader.fail("/faults", fmt::format("expected at most {} faults, got {}", kMostFaultEntries, v.size()));
    }
    double expected_rate_occurrences = 0;
    for (std::size_t index = 0; index < v.size(); ++index) {
      scenario.faults.push_back(
          read_fault(reader, v[index], fmt::format("/faults/{}", index), scenario, expected_rate_occurrences));
    }
  });
  with_member(document, "swarm", [&](const json& v) { scenario.swarm = reader.boolean(v, "/swarm"); });
  with_member(document, "allow_inert", [&](const json& v) { scenario.allow_inert = reader.boolean(v, "/allow_inert"); });
  with_member(document, "probes_required", [&](const json& v) {
    if (!v.is_array()) reader.expected("/probes_required", "a list of probe names", v);
    for (std::size_t index = 0; index < v.size(); ++index) {
      scenario.probes_required.push_back(reader.string(v[index], fmt::format("/probes_required/{}", index)));
    }
  });
  with_member(document, "expect", [&](const json& v) { read_expect(reader, v, scenario); });
  with_member(document, "choices", [&](const json& v) { read_choices(reader, v, scenario); });
  scenario.warnings = setting_warnings(scenario);
  return scenario;
}

Scenario load_scenario_file(const std::string& path) {
  std::ifstream input{path, std::ios::binary};
  if (!input) {
    throw ScenarioError(fmt::format("{}: cannot read the file", path));
  }
  // One byte past the limit is enough to refuse the file: a huge file is never read whole.
  std::string contents(kLargestScenarioFile + 1, '\0');
  input.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (input.bad()) {
    throw ScenarioError(fmt::format("{}: cannot read the file", path));
  }
  contents.resize(static_cast<std::size_t>(input.gcount()));
  return parse_scenario(contents, path);
}

}  // namespace locksim::scenario
