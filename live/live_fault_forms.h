#pragma once
// Which of a scenario's planned faults live mode can carry out for real,
// and why not the others. A fault with no live form is named on stderr and
// skipped, counted as not fired.

#include <string>

#include "model/options.h"
#include "scenario/plan.h"

namespace locksim::live {

struct LiveFaultContext {
  bool own_lock_servers = false;  // locksim started the lock service's servers (not --redis), so it may kill them
  bool user_program = false;      // workers.command: the user's program, whose lines are all locksim sees of it
  bool failover_service = false;  // redis-failover: Sentinel fails its primary over (failover_service.h)
  bool consensus_service = false;  // consensus: an etcd cluster of locksim's own (consensus_service.h)
  model::MaxmemoryPolicy maxmemory_policy = model::MaxmemoryPolicy::kNoEviction;  // the scenario's
};

// `scenario`'s, with `own_lock_servers` when locksim starts the lock service's servers.
[[nodiscard]] LiveFaultContext live_fault_context(const scenario::Scenario& scenario, bool own_lock_servers);

// The lock service's instances are redis-0 … (Redlock: redis-(N-1)).
[[nodiscard]] bool targets_a_lock_instance(const scenario::PlannedFault& fault);
[[nodiscard]] bool targets_a_worker(const scenario::PlannedFault& fault);

// Why `fault` has no live form; "" when it has one.
[[nodiscard]] std::string no_live_form(const scenario::PlannedFault& fault, const LiveFaultContext& context);

}  // namespace locksim::live
