#include "live/live_fault_forms.h"

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

std::string on_lock_instance(const PlannedFault& fault, const LiveFaultContext& context) {
  if (context.failover_service) {
    // Sentinel reacts to them as to any unreachable primary. A restarted
    // server would have to rejoin as a replica, and the replica's own
    // faults would cut off the coordinator's view of the records: neither
    // has a live form yet.
    if (fault.target != instance_name(0)) return "on redis-failover only redis-0, the primary at the start, is paused or crashed live";
    if (fault.kind() == FaultKind::kCrash && std::get<model::faults::Crash>(fault.params).restart_after) {
      return "a redis-failover server is not restarted live (its rejoin has no live form yet)";
    }
  } else if (!context.own_lock_servers) return "a lock server locksim did not start (--redis) is never crashed or paused";
  if (const auto* on_event = event_trigger(fault); on_event && on_event->when != TriggerEvent::kAfterGrant) {
    return "its trigger has no live form on the lock service (only a time and after-grant)";
  }
  return "";
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

bool targets_a_lock_instance(const PlannedFault& fault) { return fault.target.starts_with("redis-"); }
bool targets_a_worker(const PlannedFault& fault) { return vocabulary::is_worker(fault.target); }

std::string no_live_form(const PlannedFault& fault, const LiveFaultContext& context) {
  switch (fault.kind()) {
    case FaultKind::kPause:
    case FaultKind::kCrash:
      if (targets_a_lock_instance(fault)) return on_lock_instance(fault, context);
      if (!targets_a_worker(fault)) return "only workers and the lock service's instances are paused or crashed live";
      return on_worker(fault, context);
    case FaultKind::kClockJump:
    case FaultKind::kClockDrift: return "changing a clock needs root and would disturb the whole machine";
    case FaultKind::kPartition:
    case FaultKind::kDelaySpike: return on_network(fault);
    case FaultKind::kFailover: return failover_fault_without_live_form(fault);
    case FaultKind::kPowerLoss:
      return "a power loss would need the machine's page cache thrown away (root, and the whole machine)";
    default: return "no live form yet";
  }
}

}  // namespace locksim::live
