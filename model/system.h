#pragma once
// System: a whole modelled setup inside one Simulation — the lock service's
// nodes, `storage`, and workers `worker-1` … `worker-N`, added in that order
// (so NodeIds, and therefore runs, do not depend on anything else).
//
// With billing's charge `external`, a `payments` node comes right after
// `storage` (other setups have none, so their NodeIds are unchanged).
//
// It also carries out the faults that need model knowledge (a worker's crash
// ends its hold; a failover is the service's business), offers storage's
// final values for `run.end` (which the runner records, with run.begin), counts
// the jobs left undone, and stops the simulation once every worker has
// finished its jobs and no message is left in flight.

#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/lock_service.h"
#include "model/options.h"
#include "model/payments.h"
#include "model/storage.h"
#include "model/worker.h"
#include "sim/simulation.h"

namespace locksim::model {

class System {
 public:
  System(sim::Simulation& simulation, SystemOptions options);
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  [[nodiscard]] const SystemOptions& options() const { return options_; }
  [[nodiscard]] LockService& service() { return *service_; }
  [[nodiscard]] const Storage& storage() const { return storage_; }
  [[nodiscard]] sim::NodeId storage_node() const { return storage_node_; }
  // Any node by its name (redis-0, sentinel, worker-1, …).
  [[nodiscard]] std::optional<sim::NodeId> find_node(std::string_view name) const { return simulation_->find_node(name); }
  [[nodiscard]] std::vector<sim::NodeId> worker_nodes() const { return worker_nodes_; }
  [[nodiscard]] sim::NodeId worker_node(int number) const { return worker_nodes_.at(static_cast<std::size_t>(number - 1)); }
  [[nodiscard]] const Worker& worker(int number) const { return workers_.at(static_cast<std::size_t>(number - 1)); }
  [[nodiscard]] bool all_workers_finished() const;
  // That worker's first job begins `offset` after t = 0 (the plan's draw from
  // workers.start); call before the simulation runs. Default: at once.
  void start_worker_after(std::string_view worker, sim::Duration offset);
  // Jobs not done (so far): counter and write-only, jobs × workers − jobs done; billing,
  // customers never charged. Jobs of a worker that crashed for good count, and so
  // do jobs given up (acquire timeout or tries).
  [[nodiscard]] std::int64_t unfinished_jobs() const;
  // Jobs done (billing: customers charged), and what the work cost: the
  // workers' costs added up, storage's calls to validate a token included.
  [[nodiscard]] std::int64_t jobs_done() const;
  [[nodiscard]] Worker::Costs costs() const;

  // The node names a system of `options` has, in the order it adds them:
  // the service's instances, `storage`, `payments` (external charges only),
  // then `worker-1` … `worker-N`.
  [[nodiscard]] static std::vector<std::string> node_names(const SystemOptions& options);

  // Faults with history records. crash() ends a crashing worker's hold
  // (hold.end reason crash) and records `crash`; restart() records `restart`.
  void crash(sim::NodeId node);
  void restart(sim::NodeId node);
  // A machine crash: like crash(), but a Redis instance on `node` also loses
  // what its disk had not synced (persistence everysec: the last second).
  void power_loss(sim::NodeId node);
  // Memory pressure can act on `node`: a Redis primary that is up (a replica
  // ignores maxmemory, as Redis replicas do by default).
  [[nodiscard]] bool can_press_memory(sim::NodeId node);
  // Memory pressure on that instance: it frees the room of `keys` keys by its
  // maxmemory policy (noeviction: none); true if it freed them all.
  bool press_memory(sim::NodeId node, int keys);
  // +1: a pressure whose room was not freed keeps the instance over
  // maxmemory (acquires answer -OOM); -1 when it ends.
  void hold_over_maxmemory(sim::NodeId node, int pressures);
  // Returns false if the service has no failover.
  bool failover(const FailoverFault& fault);
  [[nodiscard]] bool service_has_failover() const { return options_.service.kind == ServiceKind::kRedisFailover; }

  // {"qty":4}: storage's values, for run.end's `final`.
  [[nodiscard]] std::string final_values_json() const;

 private:
  Worker* worker_on(sim::NodeId node);
  void on_worker_finished();
  void stop_when_network_is_quiet();

  static constexpr sim::Duration kQuietCheckInterval = sim::Duration::milliseconds(100);

  sim::Simulation* simulation_;
  SystemOptions options_;
  std::unique_ptr<LockService> service_;
  Storage storage_;
  sim::NodeId storage_node_;
  // Billing with charge `external` only: the payments node, added right after storage.
  std::unique_ptr<Payments> payments_;
  std::optional<sim::NodeId> payments_node_;
  std::vector<std::unique_ptr<LockClient>> clients_;
  std::deque<Worker> workers_;  // deque: boot functions hold their addresses
  std::vector<sim::NodeId> worker_nodes_;
  std::set<std::int64_t> charged_customers_;  // billing: the `job`s of storage's write.accept events
};

}  // namespace locksim::model
