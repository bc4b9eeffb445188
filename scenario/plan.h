#pragma once
// The plan: everything random about a run that does not depend on behaviour,
// drawn from the seed *before* the run — which node each fault hits, when a
// rate-triggered fault fires, how long each fault lasts, which faults a swarm
// seed enables, each node's clock drift. The same plan is run with fencing off
// and on, so the two runs differ only in what fencing changes.
//
// Each fault draws from its own named stream ("plan/faults/3"), and clocks
// from "plan/clocks": adding a fault or a worker never shifts another fault's
// draws.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace locksim::scenario {

// One fault occurrence made concrete: fixed target(s), trigger and lengths.
struct PlannedFault {
  std::size_t index = 0;  // the fault's position in the scenario (faults_fired key "faults[index]")
  std::string target;  // the node it hits, or whose event triggers it ("" for an untargeted partition or failover)
  std::variant<AtTime, OnEvent> trigger = AtTime{};
  Duration length;  // its `for`, drawn (unused by a kind without one)
  model::FaultParams params;

  [[nodiscard]] FaultKind kind() const { return model::fault_kind_of(params); }
};

struct Plan {
  std::uint64_t seed = 0;
  std::vector<PlannedFault> faults;              // in scenario order, rate occurrences in time order
  std::map<std::string, std::int64_t> drift_ppb;  // by node name; absent = no drift
  std::map<std::string, Duration> worker_starts;  // by worker name: its first job begins then (workers.start)
};

// The scenario's node names, as the model names them (model::System::node_names):
// service instances, storage, workers.
[[nodiscard]] std::vector<std::string> scenario_node_names(const Scenario& scenario);

// The nodes `fault` may hit: its named node ("" when it names none: an
// untargeted partition or failover), or every member of its group.
[[nodiscard]] std::vector<std::string> fault_targets(const Scenario& scenario, const FaultSpec& fault);

// Fault `index` of a scenario made concrete with this target and length (its
// `for`); the trigger is left for the caller to set.
[[nodiscard]] PlannedFault plan_fault(const FaultSpec& fault, std::size_t index, std::string target, Duration length);

[[nodiscard]] Plan make_plan(const Scenario& scenario, std::uint64_t seed);

}  // namespace locksim::scenario
