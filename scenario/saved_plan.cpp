#include "scenario/saved_plan.h"

#include <array>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "sim/duration_text.h"

namespace locksim::scenario {
namespace {

std::string trigger_name(TriggerEvent when) {
  constexpr std::array kNames{"after-acquire", "before-write", "after-grant", "before-reply", "before-charge"};
  return kNames[static_cast<std::size_t>(when)];
}

// Writes a planned fault's own keys (model/fault.h) as a scenario file gives them.
class FaultKeysWriter {
 public:
  FaultKeysWriter(nlohmann::ordered_json& entry, sim::Duration length) : entry_{entry}, length_{length} {}

  void operator()(const model::faults::Pause&) const { write_length(); }
  void operator()(const model::faults::StarveRenewal&) const { write_length(); }
  void operator()(const model::faults::MemoryPressure& pressure) const {
    entry_["evict"] = pressure.evict;
    write_length();
  }
  void operator()(const model::faults::Crash& crash) const { write_restart(crash.restart_after); }
  void operator()(const model::faults::PowerLoss& loss) const { write_restart(loss.restart_after); }
  void operator()(const model::faults::ClockJump& jump) const { entry_["by"] = sim::format_duration(jump.by); }
  void operator()(const model::faults::ClockDrift& drift) const { entry_["ppm"] = drift.ppm; }
  void operator()(const model::faults::Partition& partition) const {
    entry_["between"] = {partition.side_a, partition.side_b};
    write_length();
  }
  void operator()(const model::faults::Failover& failover) const {
    if (failover.primary != model::FailoverPrimary::kPartition) return;
    entry_["primary"] = "partition";
    entry_["with_primary"] = failover.with_primary;
    write_length();
  }
  void operator()(const model::faults::DelaySpike& spike) const {
    entry_["extra"] = sim::format_duration(spike.extra);
    write_length();
  }

 private:
  void write_length() const { entry_["for"] = sim::format_duration(length_); }
  void write_restart(const std::optional<sim::Duration>& restart_after) const {
    if (restart_after) entry_["restart_after"] = sim::format_duration(*restart_after);
  }

  nlohmann::ordered_json& entry_;
  sim::Duration length_;
};

}  // namespace

std::string saved_plan_json(std::string_view original, const Scenario& scenario, const Plan& plan) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(original);
  nlohmann::ordered_json faults = nlohmann::ordered_json::array();
  for (const auto& [node, drift_ppb] : plan.drift_ppb) {
    faults.push_back(
        {{"kind", fault_kind_name(FaultKind::kClockDrift)}, {"target", node}, {"at", "0s"}, {"ppm", drift_ppb / 1000}});
  }
  for (const PlannedFault& fault : plan.faults) {
    nlohmann::ordered_json entry{{"kind", fault_kind_name(fault.kind())}};
    if (!fault.target.empty()) entry["target"] = fault.target;
    if (const auto* at = std::get_if<AtTime>(&fault.trigger)) {
      entry["at"] = sim::format_duration(at->at);
    } else {
      const auto& on_event = std::get<OnEvent>(fault.trigger);
      entry["when"] = trigger_name(on_event.when);
      entry["nth"] = on_event.nth;
      entry["delay"] = sim::format_duration(on_event.delay);
    }
    std::visit(FaultKeysWriter{entry, fault.length}, fault.params);
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

}  // namespace locksim::scenario
