#include "live/live_fault_forms.h"

#include "live/consensus_service.h"
#include "live/failover_service.h"
#include "vocabulary/worker_name.h"

#include <variant>

namespace locksim::live {
namespace {

using scenario::FaultKind;
using scenario::PlannedFault;
using scenario::TriggerEvent;

const scenario::OnEvent* event_trigger(const PlannedFault& fault) {
  return std::get_if<scenario::OnEvent>(&fault.trigger);
}

// A user's lock code logs nothing in Redis: its grants are known only from
// its acquire.ok lines, after the run (client_side_leases.h), too late to
// count one while the run goes on.
std::string unseen_grant(const PlannedFault& fault, const LiveFaultContext& context) {
  const auto* on_event = event_trigger(fault);
  if (!context.user_program || on_event == nullptr || on_event->when != TriggerEvent::kAfterGrant) return "";
  return "after-grant has no live form with workers.command: your lock code logs no grant in Redis to count while "
         "the run goes on (a time trigger works)";
}

std::string on_lock_instance(const PlannedFault& fault, const LiveFaultContext& context) {
  if (std::string why = unseen_grant(fault, context); !why.empty()) return why;
  // On redis-failover Sentinel reacts to a paused or crashed primary as to
  // any unreachable one; a restarted server comes back with what its
  // persistence kept and resyncs, or is converted by Sentinel (live/failover_service.h).
  if (!context.failover_service && !context.own_lock_servers) return "a lock server locksim did not start (--redis) is never crashed, paused or filled";
  if (const auto* on_event = event_trigger(fault); on_event && on_event->when != TriggerEvent::kAfterGrant) {
    return "its trigger has no live form on the lock service (only a time and after-grant)";
  }
  return "";
}

// Live, memory pressure is maxmemory lowered to 1 byte for `for`: under
// noeviction exactly the model's (nothing evicted, every denyoom command
// -OOM); under another policy Redis would evict every key it may take.
std::string memory_pressure(const PlannedFault& fault, const LiveFaultContext& context) {
  if (context.failover_service) return "memory pressure on redis-failover has no live form yet";
  if (context.maxmemory_policy != model::MaxmemoryPolicy::kNoEviction) {
    return "memory pressure has a live form only under noeviction (with maxmemory lowered, a real Redis evicts "
           "every key its policy takes, not `evict` sampled ones)";
  }
  return on_lock_instance(fault, context);
}

std::string on_worker(const PlannedFault& fault, const LiveFaultContext& context) {
  const auto* on_event = event_trigger(fault);
  if (on_event == nullptr) return "";
  switch (on_event->when) {
    case TriggerEvent::kAfterAcquire:
    case TriggerEvent::kBeforeWrite:
    case TriggerEvent::kBeforeCharge: return "";
    case TriggerEvent::kBeforeReply:
      // Between sending the acquire and reading its reply a program of the
      // user's prints nothing, so there is no line to stop it at.
      if (context.user_program) return "before-reply has no live form with workers.command (no line marks it)";
      // An etcd acquire is several requests (lease, transaction, watch): no one of them is "the" request.
      if (context.consensus_service) return "before-reply has no live form on a consensus service (its acquire is several requests)";
      return "";
    case TriggerEvent::kAfterGrant: break;
  }
  return "its trigger has no live form on a worker (only a time, after-acquire, before-write, before-charge and "
         "before-reply)";
}

std::string on_network(const PlannedFault& fault) {
  const auto* on_event = event_trigger(fault);
  if (on_event == nullptr || on_event->when == TriggerEvent::kAfterAcquire ||
      on_event->when == TriggerEvent::kBeforeWrite || on_event->when == TriggerEvent::kBeforeCharge) {
    return "";
  }
  return "its trigger has no live form for a network fault (only a time, after-acquire, before-write and "
         "before-charge)";
}

}  // namespace

LiveFaultContext live_fault_context(const scenario::Scenario& scenario, bool own_lock_servers) {
  return {own_lock_servers, !scenario.worker_command.empty(),
          scenario.system.service.kind == model::ServiceKind::kRedisFailover,
          scenario.system.service.kind == model::ServiceKind::kConsensus, scenario.system.service.memory.policy};
}

bool targets_a_lock_instance(const PlannedFault& fault) { return fault.target.starts_with("redis-"); }
bool targets_a_worker(const PlannedFault& fault) { return vocabulary::is_worker(fault.target); }

std::string no_live_form(const PlannedFault& fault, const LiveFaultContext& context) {
  switch (fault.kind()) {
    case FaultKind::kPause:
    case FaultKind::kCrash:
      if (context.consensus_service && is_consensus_target(fault.target)) return consensus_fault_without_live_form(fault);
      if (targets_a_lock_instance(fault)) return on_lock_instance(fault, context);
      if (!targets_a_worker(fault)) return "only workers and the lock service's instances are paused or crashed live";
      return on_worker(fault, context);
    case FaultKind::kClockJump:
    case FaultKind::kClockDrift: return "changing a clock needs root and would disturb the whole machine";
    case FaultKind::kPartition:
      if (context.consensus_service) {
        if (std::string why = consensus_fault_without_live_form(fault); !why.empty()) return why;
      }
      return on_network(fault);
    case FaultKind::kDelaySpike: return on_network(fault);
    case FaultKind::kFailover:
      if (std::string why = unseen_grant(fault, context); !why.empty()) return why;
      return failover_fault_without_live_form(fault);
    case FaultKind::kPowerLoss:
      return "a power loss would need the machine's page cache thrown away (root, and the whole machine)";
    case FaultKind::kMemoryPressure:
      if (!targets_a_lock_instance(fault)) return "memory pressure acts on a lock server";
      return memory_pressure(fault, context);
    default: return "no live form yet";
  }
}

}  // namespace locksim::live
