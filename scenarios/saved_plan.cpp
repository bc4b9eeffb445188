#include "scenarios/saved_plan.h"

#include <array>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "sim/duration_text.h"

namespace locksim::scenarios {
namespace {

std::string trigger_name(TriggerEvent when) {
  constexpr std::array kNames{"after-acquire", "before-write", "after-grant", "before-reply", "before-charge"};
  return kNames[static_cast<std::size_t>(when)];
}

}  // namespace

std::string saved_plan_json(std::string_view original, const Scenario& scenario, const Plan& plan) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(original);
  nlohmann::ordered_json faults = nlohmann::ordered_json::array();
  for (const auto& [node, drift_ppb] : plan.drift_ppb) {
    faults.push_back(
        {{"kind", fault_kind_name(FaultKind::kClockDrift)}, {"target", node}, {"at", "0s"}, {"ppm", drift_ppb / 1000}});
  }
  for (const PlannedFault& fault : plan.faults) {
    nlohmann::ordered_json entry{{"kind", fault_kind_name(fault.kind)}};
    if (!fault.target.empty()) entry["target"] = fault.target;
    if (const auto* at = std::get_if<AtTime>(&fault.trigger)) {
      entry["at"] = sim::format_duration(at->at);
    } else {
      const auto& on_event = std::get<OnEvent>(fault.trigger);
      entry["when"] = trigger_name(on_event.when);
      entry["nth"] = on_event.nth;
      entry["delay"] = sim::format_duration(on_event.delay);
    }
    switch (fault.kind) {
      case FaultKind::kPause:
      case FaultKind::kStarveRenewal: entry["for"] = sim::format_duration(fault.length); break;
      case FaultKind::kMemoryPressure: entry["evict"] = fault.evict; break;
      case FaultKind::kCrash:
      case FaultKind::kPowerLoss:
        if (fault.restart_after) entry["restart_after"] = sim::format_duration(*fault.restart_after);
        break;
      case FaultKind::kClockJump: entry["by"] = sim::format_duration(fault.by); break;
      case FaultKind::kClockDrift: entry["ppm"] = fault.ppm; break;
      case FaultKind::kPartition:
        entry["between"] = {fault.side_a, fault.side_b};
        entry["for"] = sim::format_duration(fault.length);
        break;
      case FaultKind::kFailover:
        if (fault.failover_primary == model::FailoverPrimary::kPartition) {
          entry["primary"] = "partition";
          entry["with_primary"] = fault.with_primary;
          entry["for"] = sim::format_duration(fault.length);
        }
        break;
      case FaultKind::kDelaySpike:
        entry["extra"] = sim::format_duration(fault.extra);
        entry["for"] = sim::format_duration(fault.length);
        break;
    }
    faults.push_back(entry);
  }
  document["faults"] = faults;
  document["seeds"] = 1;
  // Work lengths and network delays still come from the seed's own streams,
  // so the plan runs the seed it was saved from unless told otherwise.
  document["first_seed"] = plan.seed;
  document["swarm"] = false;
  document.erase("clocks");
  document["description"] = fmt::format("The plan of {} seed {}, written out by locksim replay --save-plan. {}",
                                        scenario.name, plan.seed, scenario.description);
  return document.dump(2) + "\n";
}

}  // namespace locksim::scenarios
