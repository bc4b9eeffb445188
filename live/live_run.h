#pragma once
// One live run of a scenario in one fencing mode: the real Redis lock
// service and storage, one worker process per scenario worker (the locksim
// binary's `live-worker`, or the user's program: workers.command,
// user_worker_config.h), the seed's plan of faults applied for real — a
// pause is SIGSTOP/SIGCONT of the worker's process, a crash SIGKILL (and a
// restart a new process) — then the history put together (live_history.h)
// and judged by the same checker as a simulated run.
//
// The lock service is one redis-server, or Redlock's N (redis-0 …). A
// server locksim started is crashed with SIGKILL and restarted on the same
// port, or frozen with SIGSTOP; network delays, delay spikes and partitions
// happen in the fault proxy (fault_proxy.h) every worker reaches the servers
// through.
//
// What has no live form here is said and skipped, counted as not fired:
// clock jumps and drift (they need root and would disturb the machine), a
// power loss, memory pressure but under noeviction, and faults on storage
// (live_fault_forms.h).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/history_checker.h"
#include "live/redis_client.h"
#include "live/redis_server.h"
#include "model/options.h"
#include "scenario/scenario.h"

namespace locksim::live {

// SIGINT or SIGTERM ended the run: every worker was killed, and locksim's
// own servers are stopped as the exception unwinds.
class LiveInterrupted : public LiveError {
 public:
  explicit LiveInterrupted(int signal);
  [[nodiscard]] int signal() const { return signal_; }

 private:
  int signal_;
};

struct Endpoint {
  std::string host = "127.0.0.1";
  int port = 0;
};

struct LiveRunSettings {
  std::uint64_t seed = 1;   // the plan's seed (fault times, targets, lengths) and the workers' draws
  double time_scale = 1.0;  // every scenario duration is multiplied by it
  // How long a user's program may take to say it is ready (live.hello): a
  // Python or Node client loads in 0.1-2 s. Past it the run starts without
  // it, and its start is late (said in the run's notices).
  std::chrono::milliseconds ready_timeout{10'000};
  std::vector<Endpoint> lock_instances;  // the lock service: redis-0 (Redlock: redis-0 … redis-(N-1))
  Endpoint storage;
  std::string worker_program;  // the locksim binary, run as `live-worker`
  std::string prefix;          // the run's key prefix (unique per run)
  // The same instances' servers when locksim started them (and so may
  // crash, freeze and restart them; not owned, they outlive the runs);
  // empty for the user's --redis, whose faults have no live form.
  std::vector<RedisServer*> own_lock_servers;
};

struct LiveRunResult {
  std::vector<std::string> history;  // JSON lines
  checker::HistoryVerdict verdict;
  std::vector<std::size_t> faults_fired;  // scenario fault indices that fired
  bool stopped_short = false;             // the (scaled) duration ran out with jobs left
  std::string why_stopped;
  std::int64_t unfinished_jobs = 0;
  // What the user should know of how the run went that no count says: a
  // worker that exited by itself, a program ready late, a string token
  // under fencing.
  std::vector<std::string> notices;
  double wall_seconds = 0;
};

// Why `scenario` cannot run live, naming its JSON path ("" when it can).
[[nodiscard]] std::string live_unsupported(const scenario::Scenario& scenario);

// Faults of the scenario that have no live form here, each with why, as
// "faults[i]: …". Faults on the lock service have one only when locksim
// runs its servers (`own_lock_servers`).
[[nodiscard]] std::vector<std::string> faults_without_live_form(const scenario::Scenario& scenario,
                                                                bool own_lock_servers);

// How many redis-servers the scenario's lock service has live: Redlock's N, else 1.
[[nodiscard]] int lock_instance_count(const scenario::Scenario& scenario);

// The redis-server persistence matching the scenario's service.persistence.
[[nodiscard]] ServerPersistence server_persistence(const scenario::Scenario& scenario);

// Runs it. Throws LiveError when a real part fails (a server, a worker).
[[nodiscard]] LiveRunResult run_live(const scenario::Scenario& scenario, model::Fencing mode,
                                     const LiveRunSettings& settings);

}  // namespace locksim::live
