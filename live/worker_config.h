#pragma once
// What a live worker process is told when it starts: which scenario (it
// reads the file itself, as the simulator would), who it is, where the
// Redis servers are (the lock service's instances — one, or Redlock's N —
// and storage), the run's key prefix, the shared clock's zero, the time
// scale, and how many jobs are left (after a restart). It travels as one
// JSON argument, so the user's own worker programs can be given the same.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/options.h"

namespace locksim::live {

// A pause the worker takes itself, with a real SIGSTOP of its own process,
// right at a fault point: after its nth hold.begin line (before anything
// else), its nth write.invoke or effect.invoke line (the request still in
// hand), or once its nth acquire request is written, before any reply is read
// (`acquire.sent`, no line; with Redlock, every instance's request). The
// coordinator sends the SIGCONT. A signal from outside could not land there:
// the next request would already be on its way.
// The self-stop point that has no history line.
inline constexpr char kAcquireSent[] = "acquire.sent";

struct SelfStop {
  std::string after;  // an event's name (hold.begin, write.invoke, effect.invoke) or kAcquireSent
  int nth = 1;
  std::size_t fault = 0;  // the scenario's fault index
};

// How a worker of a redis-failover service finds the primary, as a
// Sentinel-aware client does: it asks Sentinel (`SENTINEL
// get-master-addr-by-name`) and follows `+switch-master`. Sentinel names
// the servers by their own addresses; the worker reaches each through its
// link in the fault proxy, so it maps each announced port to its link's
// (as a client behind NAT does: Redisson's NatMapper).
struct SentinelRoute {
  int sentinel_port = 0;  // its link to Sentinel
  std::string master_name;
  std::vector<std::pair<int, int>> ports;  // (port Sentinel announces, the worker's link to that server)
};

struct WorkerConfig {
  std::string scenario_file;
  std::string name;  // "worker-1"
  model::Fencing fencing = model::Fencing::kOff;
  std::string host = "127.0.0.1";
  int lock_port = 0;            // the lock service (its first instance)
  std::vector<int> lock_ports;  // every instance of the lock service, redis-0 first (Redlock: N; consensus: its members)
  // consensus: the member its client asks first, as the model's nth client
  // made asks member n mod N (a restarted worker's client is a new one).
  int first_member = 0;
  int storage_port = 0;
  std::string prefix;        // every key this run touches starts with it
  std::int64_t start_ns = 0;  // CLOCK_MONOTONIC at the run's t = 0 (shared by every local process)
  std::int64_t begin_ns = 0;  // its job loop begins this long after t = 0 (live_run.h: who asks first)
  double time_scale = 1.0;   // every scenario duration is multiplied by it
  std::uint64_t seed = 1;    // the worker's random streams (work lengths, retry waits)
  int jobs_left = -1;        // -1: all of the workload's jobs
  int jobs_done = 0;         // by its earlier processes (write-only writes the job's number: done + 1)
  std::vector<SelfStop> stops;
  std::optional<SentinelRoute> sentinel;  // redis-failover only; lock_port is then its link to redis-0
};

[[nodiscard]] std::string worker_config_json(const WorkerConfig& config);
// Throws std::runtime_error naming what is missing or malformed.
[[nodiscard]] WorkerConfig parse_worker_config(const std::string& json);

}  // namespace locksim::live
