#pragma once
// A `redis-failover` lock service during one live run, as the coordinator
// sees it: the real cluster (failover_cluster.h) started for the run, the
// decision logs of both servers, what Sentinel announces, and the
// `failover` fault carried out the way such a failure really happens:
// - `primary: crash` (the default): the primary is killed (SIGKILL) and
//   stays down; Sentinel notices after its down-after-milliseconds and
//   promotes the replica;
// - `primary: partition` (split brain): the fault proxy cuts the primary and
//   the workers of `with_primary` off from Sentinel, the replica (its
//   replication stream) and every other worker, for the fault's `for`; the
//   primary stays up and serves its side. Sentinel promotes the replica
//   after down-after; at the heal it finds the old primary and turns it into
//   the new primary's replica (`+convert-to-slave`).
//
// Who decided a record: every lock script PUBLISHes its record, and a
// replica passes on its primary's PUBLISH (Redis replicates it), so a
// server's subscribers hear its own records and, later, its primary's. The
// coordinator subscribes to both servers directly (not through the proxy);
// a record is the server's that published it first: its own server's
// message arrives at once, a replicated copy only after the replication lag.
//
// Role changes are noted with what the promoted replica held at that moment
// (the lock's key and what is left of its lease), from which the history
// gives `lease.adopt` / `lease.lost` as the simulator does.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "live/asio_coroutines.h"
#include "live/failover_cluster.h"
#include "live/fault_proxy.h"
#include "live/live_history.h"
#include "live/log_subscription.h"
#include "live/worker_config.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"

namespace locksim::live {

class FailoverService {
 public:
  // A lock record, once, with the instance that decided it.
  using OnRecord = std::function<void(const std::string& instance, const std::string& record)>;
  using Record = std::function<void(nlohmann::ordered_json line)>;  // a coordinator line (t, proc, ev, …)
  using Now = std::function<std::int64_t()>;                        // the run's time, ns

  // Starts the cluster (with links in `proxy`) and subscribes to it.
  FailoverService(asio::io_context& io, FaultProxy& proxy, const scenario::Scenario& scenario, double time_scale,
                  std::string lock_key, std::string log_channel, OnRecord on_record, Record record, Now now);
  ~FailoverService();
  FailoverService(const FailoverService&) = delete;
  FailoverService& operator=(const FailoverService&) = delete;

  // Opens `worker`'s links (to each server and to Sentinel) and returns how
  // it finds the primary through them; `lock_port` becomes its link to redis-0.
  SentinelRoute open_worker_links(const std::string& worker, int& lock_port);
  // The servers a worker's links reach: the instances and Sentinel.
  [[nodiscard]] std::set<std::string> lock_servers() const;

  // redis-0 or redis-1, for a plain pause or crash (Sentinel reacts by itself).
  [[nodiscard]] RedisServer& server(std::size_t instance) { return cluster_.server(instance); }
  // `instance` is up again after a crash (restarted on its own port and
  // directory: it has what its persistence kept, and its replication link
  // resyncs as Redis's does). Hears its records again and notes the restart
  // with the lock's key it came back with.
  void restarted(std::size_t instance, LockRestart restart);

  // Carries out a `failover` fault. False when one is under way already (it does nothing, as in the model).
  bool act(const scenario::PlannedFault& fault);

  // Adds what the servers' log lists hold that no subscription heard (a
  // record made while Sentinel had cut the subscription off). At the run's end.
  void collect_unheard();
  // Each instance's lock records (redis-0 first).
  [[nodiscard]] std::vector<LockInstanceRecords> lock_instances() const;
  [[nodiscard]] const std::vector<LockRoleChange>& role_changes() const { return role_changes_; }

 private:
  void heard(std::size_t instance, const std::string& record);
  void on_promotion();
  void on_rejoin();
  void resubscribe_to_servers();

  asio::io_context& io_;
  FaultProxy& proxy_;
  const scenario::Scenario& scenario_;
  double time_scale_;
  std::string lock_key_;
  std::string log_key_;
  OnRecord on_record_;
  Record record_;
  Now now_;
  FailoverCluster cluster_;
  std::vector<std::unique_ptr<LogSubscription>> subscriptions_;
  std::map<std::string, std::size_t> decided_by_;  // record text → the instance that decided it
  std::vector<std::pair<std::string, std::size_t>> records_;
  std::vector<LockRoleChange> role_changes_;
  std::array<std::vector<LockRestart>, FailoverCluster::kInstances> restarts_;
  bool failing_over_ = false;
  bool promoted_ = false;
  bool rejoined_ = false;  // a split brain's old primary became the new one's replica
  // The instance that decided a record heard from `instance`: a replica only copies its primary's.
  [[nodiscard]] std::size_t decider(std::size_t instance) const;
  std::optional<int> cut_;
};

// Why a failover fault has no live form ("" when it has one).
[[nodiscard]] std::string failover_fault_without_live_form(const scenario::PlannedFault& fault);

// Sentinel's down-after-milliseconds for a scenario at a time scale (at least 1 ms).
[[nodiscard]] std::chrono::milliseconds scaled_down_after(const scenario::Scenario& scenario, double time_scale);

}  // namespace locksim::live
