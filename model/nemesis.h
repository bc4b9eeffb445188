#pragma once
// Nemesis: carries out faults on a System and records them in the history as
// `fault.begin` / `fault.end` (proc `nemesis`) with the fault's kind, target
// and parameters. Faults are data: the plan decides what and when; this class
// only knows how.
//
// A fault that finds nothing to act on (a starve-renewal on a worker that is
// not renewing, a crash of a node already down) records nothing, so "this
// fault fired" can be read off the history.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fault.h"
#include "model/system.h"
#include "sim/simulation.h"

namespace locksim::model {

class Nemesis {
 public:
  Nemesis(sim::Simulation& simulation, System& system) : simulation_{&simulation}, system_{&system} {}

  // Runs `fault` at true time `at`.
  void at(sim::Time at, std::function<void()> fault);
  // Runs `fault` `delay` after the `nth` (from 1) `event` recorded by `proc`.
  void after_event(std::string proc, vocabulary::EventKind event, int nth, sim::Duration delay,
                   std::function<void()> fault);
  // The same, counting the `event`s any of `procs` records.
  void after_event(std::vector<std::string> procs, vocabulary::EventKind event, int nth, sim::Duration delay,
                   std::function<void()> fault);

  // Carries out a planned fault, bound to this system's nodes, now; true iff
  // it fired (and was recorded). One overload of act() per fault kind.
  bool apply(const BoundFault& fault);

  // The faults, acting now, as apply() does them.
  bool pause(sim::NodeId target, sim::Duration length);
  bool crash(sim::NodeId target, std::optional<sim::Duration> restart_after);
  // A machine crash: as crash, but a Redis instance also loses what it had not fsynced.
  bool power_loss(sim::NodeId target, std::optional<sim::Duration> restart_after);
  // The target Redis primary must free the room of `keys` keys now (its
  // maxmemory policy decides which); what it cannot free keeps it over
  // maxmemory for `length`.
  bool memory_pressure(sim::NodeId target, int keys, sim::Duration length = sim::Duration::zero());
  // Sets the target's wall clock; its monotonic clock never jumps.
  bool jump_clock(sim::NodeId target, sim::Duration by);
  bool drift_clock(sim::NodeId target, std::int64_t drift_ppm);
  bool partition(std::vector<sim::NodeId> side_a, std::vector<sim::NodeId> side_b, sim::Duration length);
  // Redis Sentinel's failover of the primary (crashed or cut off: `fault`),
  // which the service carries out over time (model/redis_service.h).
  bool failover(const FailoverFault& fault = {});
  bool delay_spike(sim::NodeId target, sim::Duration extra, sim::Duration length);
  bool starve_renewal(sim::NodeId worker, sim::Duration length);

 private:
  bool act(const BoundFault& fault, const faults::Pause& params);
  bool act(const BoundFault& fault, const faults::Crash& params);
  bool act(const BoundFault& fault, const faults::ClockJump& params);
  bool act(const BoundFault& fault, const faults::ClockDrift& params);
  bool act(const BoundFault& fault, const faults::PartitionOf<sim::NodeId>& params);
  bool act(const BoundFault& fault, const faults::Failover& params);
  bool act(const BoundFault& fault, const faults::DelaySpike& params);
  bool act(const BoundFault& fault, const faults::StarveRenewal& params);
  bool act(const BoundFault& fault, const faults::PowerLoss& params);
  bool act(const BoundFault& fault, const faults::MemoryPressure& params);
  // fault.begin: the kind, `target`, `between` (if any), the kind's numbers and, if it lasts, `for`.
  template <class Params>
  void record_begin(const Params& params, const sim::Field& target, const BoundFault& fault,
                    std::optional<sim::Field> between = std::nullopt);
  void record_end(vocabulary::FaultKind kind, const sim::Field& target);

  [[nodiscard]] std::string name_of(sim::NodeId node) const { return simulation_->node_name(node); }
  [[nodiscard]] std::string names_json(const std::vector<sim::NodeId>& nodes) const;

  sim::Simulation* simulation_;
  System* system_;
  std::map<std::uint32_t, int> pause_depth_;  // by node index: overlapping pauses end with the last one
};

}  // namespace locksim::model
