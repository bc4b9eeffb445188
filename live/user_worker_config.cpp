#include "live/user_worker_config.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "live/live_keys.h"
#include "live/lua_scripts.h"
#include "live/redis_client.h"
#include "model/client_rules.h"
#include "sim/random.h"

namespace locksim::live {
namespace {

using Json = nlohmann::ordered_json;

// How many retry waits are drawn for the program (it cycles through them).
constexpr int kRetryDraws = 64;

double scaled_ms(sim::Duration duration, double scale) {
  return std::round(static_cast<double>(duration.count_ns()) * scale / 1'000.0) / 1'000.0;  // to the microsecond
}

}  // namespace

StorageScriptShas load_storage_scripts(const std::string& host, int port) {
  RedisClient storage{host, port};
  return StorageScriptShas{storage.command({"SCRIPT", "LOAD", std::string{kStorageReadScript}}).text,
                           storage.command({"SCRIPT", "LOAD", std::string{kStorageWriteScript}}).text};
}

std::string user_worker_config_json(const WorkerConfig& config, const scenario::Scenario& scenario,
                                    const StorageScriptShas& scripts) {
  const model::SystemOptions& system = scenario.system;
  const double scale = config.time_scale;
  const LiveKeys keys{config.prefix};
  Json json = Json::parse(worker_config_json(config));
  json.erase("start_ns");  // the program is told t = 0 on stdin once it says it is ready
  const int jobs = config.jobs_left >= 0 ? config.jobs_left : model::jobs_per_worker(system.workload).value_or(0);
  json["jobs"] = jobs;

  Json lock{{"name", system.lock.name}, {"key", keys.lock(system.lock.name)},
            {"token_key", keys.token_counter(system.lock.name)}, {"lease_ms", nullptr}};
  // As live-worker gives it to Redis: whole milliseconds, at least one.
  if (system.lock.lease) lock["lease_ms"] = std::max<std::int64_t>(1, std::llround(scaled_ms(*system.lock.lease, scale)));
  json["lock"] = lock;
  if (system.service.kind == model::ServiceKind::kConsensus) {
    // The etcd cluster: each member through this worker's link in the fault
    // proxy, member 0 first, and the one the model's client would ask first
    // (its nth client asks member n mod N).
    Json endpoints = Json::array();
    for (const int port : config.lock_ports) endpoints.push_back(fmt::format("{}:{}", config.host, port));
    json["etcd"] = Json{{"endpoints", endpoints}, {"first", config.first_member}};
  }
  // null: no timeout (service.request_timeout "none").
  // When to give a job up (after_failed_acquire, model/client_rules.h): null for never.
  json["max_tries"] = system.workers.max_tries ? Json(*system.workers.max_tries) : Json{};
  json["acquire_timeout_ms"] =
      system.workers.acquire_timeout ? Json(scaled_ms(*system.workers.acquire_timeout, scale)) : Json{};
  json["request_timeout_ms"] = system.service.request_timeout == sim::Duration::max()
                                   ? Json{}
                                   : Json(scaled_ms(system.service.request_timeout, scale));

  // The same draws live-worker makes, from the same streams of the seed.
  const sim::RandomStreams streams{config.seed};
  sim::Rng work = streams.stream(config.name + "/work");
  sim::Rng retry = streams.stream(config.name + "/retry");
  json["work_ms"] = Json::array();
  for (int job = 0; job < jobs; ++job) json["work_ms"].push_back(scaled_ms(system.workers.work.sample(work), scale));
  json["retry_ms"] = Json::array();
  for (int draw = 0; draw < kRetryDraws; ++draw) json["retry_ms"].push_back(scaled_ms(system.workers.retry.sample(retry), scale));
  sim::Rng between = streams.stream(config.name + "/between");
  json["between_ms"] = scaled_ms(system.workers.between.sample(between), scale);

  // A user's program takes the counter and write-only workloads (live refuses billing for it).
  const std::string& key = model::workload_key(system.workload);
  json["workload"] = Json{{"kind", model::workload_kind_name(system.workload)}, {"key", key}};
  const Json storage_keys = Json::array({keys.data(key), keys.highest_token(key), keys.sequence(), keys.log()});
  json["storage"] = Json{{"host", config.host},
                         {"port", config.storage_port},
                         {"fence_reads", system.storage.fence_reads},
                         {"idempotency_keys", system.storage.idempotency_keys},
                         {"read", {{"sha1", scripts.read}, {"keys", storage_keys}}},
                         {"write", {{"sha1", scripts.write}, {"keys", storage_keys}, {"request_key_prefix", keys.request("")}}}};
  return json.dump();
}

}  // namespace locksim::live
