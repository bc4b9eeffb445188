#pragma once
// The real processes of a `redis-failover` lock service, started afresh for
// each live run on 127.0.0.1 at free ports with throw-away directories, and
// stopped (directories removed) when this object goes — on the run's end,
// an error or Ctrl-C alike:
// - redis-0, the primary;
// - redis-1, its replica (`--replicaof`), which reaches the primary through
//   the fault proxy: that link delays each chunk by the scenario's
//   `service.replication_lag` (scaled), so a change the primary acknowledged
//   can still be on its way when the primary fails (hazard H7);
// - one `redis-sentinel` monitoring the primary through the proxy too (so a
//   split brain can cut it off), with `down-after-milliseconds` = the scaled
//   `service.down_after` and quorum 1.
// Both servers get the scenario's persistence, `min-replicas-to-write` / `min-replicas-max-lag` and
// `repl-diskless-sync-delay` from the scenario (whole seconds, as Redis takes
// them), except that the replica's first sync goes at once (the primary's
// delay is 0 until then): a young replica still waiting for its snapshot
// would be promoted empty, where the model's cluster has been up a while.
//
// The constructor returns once Sentinel knows the replica and the replica is
// in sync, so a run never begins with a cluster still forming.

#include <chrono>
#include <memory>
#include <string>

#include "live/fault_proxy.h"
#include "live/redis_server.h"
#include "sim/distribution.h"

namespace locksim::live {

struct FailoverClusterSettings {
  std::chrono::milliseconds down_after{30'000};  // Sentinel's down-after-milliseconds (already scaled); default 30 s
  int min_replicas_to_write = 0;                 // 0 (the default): off
  int min_replicas_max_lag_seconds = 10;         // whole seconds; default 10 (redis.conf's)
  int repl_diskless_sync_delay_seconds = 5;      // whole seconds; default 5 (Redis 7.0's)
  sim::Distribution replication_lag = sim::Distribution::constant(sim::Duration::milliseconds(100));  // unscaled
  double time_scale = 1.0;  // Sentinel's own periods run at it (SENTINEL DEBUG)
  ServerPersistence persistence = ServerPersistence::kNone;  // both servers' (a restart keeps what it kept)
};

class FailoverCluster {
 public:
  // The name Sentinel monitors the primary under (`SENTINEL get-master-addr-by-name locksim`).
  static constexpr const char* kMasterName = "locksim";
  static constexpr std::size_t kInstances = 2;  // redis-0 and redis-1

  // Starts the three processes, the replica's and Sentinel's links in
  // `proxy` (which must outlive this), running `io` (the proxy's) meanwhile
  // so that the links carry. Throws LiveError when one does not come up.
  FailoverCluster(asio::io_context& io, FaultProxy& proxy, const FailoverClusterSettings& settings);

  // redis-0 (0) or redis-1 (1), as the processes they are.
  [[nodiscard]] RedisServer& server(std::size_t instance) { return *servers_[instance]; }
  [[nodiscard]] int port(std::size_t instance) const { return servers_[instance]->port(); }
  // An instance's port as Sentinel names it: the primary's proxy port (the
  // address Sentinel was told to monitor), the replica's own.
  [[nodiscard]] int announced_port(std::size_t instance) const { return announced_ports_[instance]; }
  [[nodiscard]] int sentinel_port() const { return sentinel_->port(); }

 private:
  std::unique_ptr<RedisServer> servers_[kInstances];
  std::unique_ptr<RedisServer> sentinel_;
  int announced_ports_[kInstances] = {0, 0};
};

// The name of instance `index` in the history ("redis-0", "redis-1").
[[nodiscard]] std::string instance_name(std::size_t index);

}  // namespace locksim::live
