#include "live/failover_cluster.h"

#include <cmath>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "live/redis_client.h"
#include "vocabulary/proc_name.h"

namespace locksim::live {
namespace {

std::vector<std::string> replication_arguments(const FailoverClusterSettings& settings) {
  return {"--repl-diskless-sync-delay", std::to_string(settings.repl_diskless_sync_delay_seconds),
          "--min-replicas-to-write", std::to_string(settings.min_replicas_to_write),
          "--min-replicas-max-lag", std::to_string(settings.min_replicas_max_lag_seconds)};
}

// A field of `INFO` ("" when absent).
std::string info_field(const std::string& info, const std::string& field) {
  const std::size_t at = info.find(field + ":");
  if (at == std::string::npos) return "";
  const std::size_t begin = at + field.size() + 1;
  return info.substr(begin, info.find_first_of("\r\n", begin) - begin);
}

// Whether Sentinel lists a replica at `port`.
bool knows_replica(RedisClient& sentinel, int port) {
  for (const RespValue& entry : sentinel.command({"SENTINEL", "REPLICAS", FailoverCluster::kMasterName}).items) {
    for (std::size_t field = 0; field + 1 < entry.items.size(); field += 2) {
      if (entry.items[field].text == "port" && entry.items[field + 1].text == std::to_string(port)) return true;
    }
  }
  return false;
}

// Runs the proxy's loop (the replica's stream and Sentinel's pings go
// through it, and only here until the run starts it) until `formed` holds.
void run_until(asio::io_context& io, const std::function<bool()>& formed, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!formed()) {
    if (std::chrono::steady_clock::now() > deadline) throw LiveError("the failover cluster did not form within 10 s: " + what);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
    while (std::chrono::steady_clock::now() < until) {
      io.poll();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  io.restart();  // were it ever out of work, the run's io.run() must not return at once
}

// A key no scenario uses: the write that shows the command stream flows.
constexpr const char* kStreamProbeKey = "locksim:replication-stream-probe";

}  // namespace

std::string instance_name(std::size_t index) { return fmt::format("redis-{}", index); }

FailoverCluster::FailoverCluster(asio::io_context& io, FaultProxy& proxy, const FailoverClusterSettings& settings) {
  servers_[0] = std::make_unique<RedisServer>(settings.persistence, RedisServerOptions{replication_arguments(settings), ""});
  const int primary_port = servers_[0]->port();
  // Sentinel's pings and the replica's stream reach the primary through the proxy.
  announced_ports_[0] = proxy.open_link(vocabulary::proc::kSentinel, instance_name(0), "127.0.0.1", primary_port, LinkOptions{std::nullopt, true});
  const int replication_port = proxy.open_link(instance_name(1), instance_name(0), "127.0.0.1", primary_port,
                                               LinkOptions{settings.replication_lag, true, true});
  // Were the primary ever a replica (a split brain's end), it names itself by
  // the address Sentinel knows it by, not a second one.
  RedisClient{"127.0.0.1", primary_port}.command({"CONFIG", "SET", "replica-announce-port", std::to_string(announced_ports_[0])});
  // The replica's first sync goes at once: the model's cluster has been up a
  // while, and a young replica still waiting for its snapshot would be
  // promoted empty. Every later full resync waits the scenario's delay.
  RedisClient{"127.0.0.1", primary_port}.command({"CONFIG", "SET", "repl-diskless-sync-delay", "0"});
  std::vector<std::string> replica_arguments = replication_arguments(settings);
  replica_arguments.insert(replica_arguments.end(), {"--replicaof", "127.0.0.1", std::to_string(replication_port)});
  servers_[1] = std::make_unique<RedisServer>(settings.persistence, RedisServerOptions{replica_arguments, ""});
  announced_ports_[1] = servers_[1]->port();
  // In sync before Sentinel starts: Sentinel learns of replicas from the
  // primary's INFO, which it asks for at once and then every 10 s, and
  // fails over only to a replica it knows.
  RedisClient replica{"127.0.0.1", servers_[1]->port()};
  run_until(io, [&] { return info_field(replica.command({"INFO", "replication"}).text, "master_link_status") == "up"; },
            "the replica is not in sync with the primary");
  // In sync is not yet streaming: after a diskless full sync the primary sends
  // the replica no command until the replica's first REPLCONF ACK, up to a
  // second later (replication.c: repl_start_cmd_stream_on_ack). A grant made
  // before then reached the replica only after it, so a primary crashing in
  // that second took the grant with it, as no run of the model does (there
  // the cluster has been up a while). Wait until a write has come through.
  RedisClient primary{"127.0.0.1", primary_port};
  run_until(
      io,
      [&] {
        try {
          primary.command({"SET", kStreamProbeKey, "1"});
        } catch (const LiveError&) {
          return false;  // NOREPLICAS under min-replicas-to-write, until the replica's first acknowledgement
        }
        return replica.command({"GET", kStreamProbeKey}).type == RespValue::Type::kString;
      },
      "the primary's command stream does not reach the replica");
  try {
    primary.command({"DEL", kStreamProbeKey});
  } catch (const LiveError&) {
    // NOREPLICAS still: the key is no scenario's, and may stay.
  }
  primary.command({"CONFIG", "SET", "repl-diskless-sync-delay", std::to_string(settings.repl_diskless_sync_delay_seconds)});
  const std::string configuration = fmt::format(
      "sentinel monitor {0} 127.0.0.1 {1} 1\n"
      "sentinel down-after-milliseconds {0} {2}\n"
      // Sentinel's default; a run never lasts long enough for its "fix the
      // replica's configuration" step, which would move the replica off the proxy.
      "sentinel failover-timeout {0} 180000\n",
      kMasterName, announced_ports_[0], std::max<std::int64_t>(1, settings.down_after.count()));
  sentinel_ = std::make_unique<RedisServer>(ServerPersistence::kNone, RedisServerOptions{{}, configuration});
  RedisClient sentinel{"127.0.0.1", sentinel_->port()};
  // The two Sentinel periods that time the conversion of a returning old
  // primary run at the time scale, as down-after does (sentinel.c; Redis 7.0
  // sets them with SENTINEL DEBUG): it converts an instance that has reported
  // "master" for over 4 publish periods (8 s) at its next INFO (every 10 s),
  // which unscaled would be 100 s of scenario time at 0.1. The ping period
  // stays: Sentinel trusts a replica's INFO for 5 ping periods while the
  // primary is down but asks for it every 1000 ms (a constant), so a scaled
  // ping period leaves it no replica good enough to promote. So do its tick
  // (50-100 ms) and its reconnects (at most one per ping period).
  const auto period = [&](std::int64_t ms) {
    return std::to_string(std::max<std::int64_t>(1, std::llround(static_cast<double>(ms) * settings.time_scale)));
  };
  sentinel.command({"SENTINEL", "DEBUG", "info-period", period(10'000), "publish-period", period(2'000)});
  run_until(io, [&] { return knows_replica(sentinel, announced_ports_[1]); }, "Sentinel does not know the replica");
}

}  // namespace locksim::live
