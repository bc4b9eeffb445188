#include "model/nemesis.h"

#include <algorithm>
#include <memory>

#include <fmt/core.h>

#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"

namespace locksim::model {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::fault_kind_name;
namespace field = vocabulary::field;

using sim::Duration;
using sim::Field;
using sim::NodeId;
using sim::RawJson;

void Nemesis::at(sim::Time at, std::function<void()> fault) { simulation_->schedule(at, std::move(fault)); }

void Nemesis::after_event(std::string proc, EventKind event, int nth, Duration delay, std::function<void()> fault) {
  auto seen = std::make_shared<int>(0);
  simulation_->observe([this, proc = std::move(proc), event, nth, delay, seen, fault = std::move(fault)](
                           std::string_view recorded_proc, EventKind recorded_event, std::span<const Field>) {
    if (recorded_proc != proc || recorded_event != event || ++*seen != nth) {
      return;
    }
    // Scheduled, not run inline: the recording process is mid-step. It runs
    // before that process's next step (models yield after fault points).
    simulation_->schedule(simulation_->now() + delay, fault);
  });
}

bool Nemesis::pause(NodeId target, Duration length) {
  if (!simulation_->is_up(target)) {
    return false;
  }
  const std::string name = name_of(target);
  simulation_->record(
      vocabulary::proc::kNemesis, EventKind::kFaultBegin,
      {{field::kKind, fault_kind_name(FaultKind::kPause)}, {field::kTarget, name}, {field::kForNs, length}});
  if (pause_depth_[target.index]++ == 0) {
    simulation_->pause(target);
  }
  simulation_->schedule(simulation_->now() + length, [this, target, name] {
    if (--pause_depth_[target.index] == 0 && simulation_->is_up(target)) {
      simulation_->resume(target);
    }
    simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                        {{field::kKind, fault_kind_name(FaultKind::kPause)}, {field::kTarget, name}});
  });
  return true;
}

bool Nemesis::crash(NodeId target, std::optional<Duration> restart_after) {
  if (!simulation_->is_up(target)) {
    return false;
  }
  const std::string name = name_of(target);
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, name}});
  pause_depth_.erase(target.index);
  system_->crash(target);
  if (restart_after) {
    simulation_->schedule(simulation_->now() + *restart_after, [this, target, name] {
      system_->restart(target);
      simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                          {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, name}});
    });
  }
  return true;
}

bool Nemesis::power_loss(NodeId target, std::optional<Duration> restart_after) {
  if (!simulation_->is_up(target)) {
    return false;
  }
  const std::string name = name_of(target);
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, fault_kind_name(FaultKind::kPowerLoss)}, {field::kTarget, name}});
  pause_depth_.erase(target.index);
  system_->power_loss(target);
  if (restart_after) {
    simulation_->schedule(simulation_->now() + *restart_after, [this, target, name] {
      system_->restart(target);
      simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                          {{field::kKind, fault_kind_name(FaultKind::kPowerLoss)}, {field::kTarget, name}});
    });
  }
  return true;
}

bool Nemesis::memory_pressure(NodeId target, int keys) {
  if (!system_->can_press_memory(target)) {
    return false;
  }
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, fault_kind_name(FaultKind::kMemoryPressure)},
                       {field::kTarget, name_of(target)},
                       {field::kEvict, std::int64_t{keys}}});
  system_->press_memory(target, keys);
  return true;
}

bool Nemesis::jump_clock(NodeId target, Duration by) {
  simulation_->record(
      vocabulary::proc::kNemesis, EventKind::kFaultBegin,
      {{field::kKind, fault_kind_name(FaultKind::kClockJump)}, {field::kTarget, name_of(target)}, {field::kByNs, by}});
  simulation_->jump_clock(target, by);
  return true;
}

bool Nemesis::drift_clock(NodeId target, std::int64_t drift_ppm) {
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, fault_kind_name(FaultKind::kClockDrift)},
                       {field::kTarget, name_of(target)},
                       {field::kPpm, drift_ppm}});
  simulation_->set_clock_drift(target, drift_ppm * 1000);
  return true;
}

std::string Nemesis::names_json(const std::vector<NodeId>& nodes) const {
  std::string json = "[";
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    json += fmt::format("{}\"{}\"", index == 0 ? "" : ",", name_of(nodes[index]));
  }
  return json + "]";
}

bool Nemesis::partition(std::vector<NodeId> side_a, std::vector<NodeId> side_b, Duration length) {
  const std::string between = fmt::format("[{},{}]", names_json(side_a), names_json(side_b));
  std::vector<NodeId> everyone = side_a;
  everyone.insert(everyone.end(), side_b.begin(), side_b.end());
  const std::string target = names_json(everyone);
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, fault_kind_name(FaultKind::kPartition)},
                       {field::kTarget, RawJson{target}},
                       {field::kBetween, RawJson{between}},
                       {field::kForNs, length}});
  const sim::PartitionId cut = simulation_->network().cut(std::move(side_a), std::move(side_b));
  simulation_->schedule(simulation_->now() + length, [this, cut, target] {
    simulation_->network().heal(cut);
    simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                        {{field::kKind, fault_kind_name(FaultKind::kPartition)}, {field::kTarget, RawJson{target}}});
  });
  return true;
}

bool Nemesis::failover(const FailoverFault& fault) {
  if (!system_->service_has_failover()) {
    return false;
  }
  FailoverFault sides = fault;
  sides.away_from_primary.clear();
  for (const NodeId worker : system_->worker_nodes()) {
    const std::string name = name_of(worker);
    if (std::find(sides.with_primary.begin(), sides.with_primary.end(), name) == sides.with_primary.end()) {
      sides.away_from_primary.push_back(name);
    }
  }
  const std::vector<NodeId> nodes = system_->service().nodes();
  const std::size_t primary = system_->service().validators().front() == nodes[0] ? 0 : 1;
  if (!system_->failover(sides)) {
    return false;  // Sentinel is failing over already
  }
  // Recorded now; the service acts after it, at the same instant.
  const std::string target = names_json(nodes);  // fields hold views: the text must outlive them
  std::vector<Field> fields{{field::kKind, fault_kind_name(FaultKind::kFailover)}, {field::kTarget, RawJson{target}}};
  const auto quoted = [](const std::vector<std::string>& names) {
    std::string json;
    for (const std::string& name : names) json += fmt::format(",\"{}\"", name);
    return json;
  };
  const std::string between = fmt::format("[[\"{}\"{}],[\"{}\"{}]]", name_of(nodes[primary]), quoted(sides.with_primary),
                                          name_of(nodes[1 - primary]), quoted(sides.away_from_primary));
  if (fault.primary == FailoverPrimary::kCrash) {
    fields.emplace_back(field::kPrimary, vocabulary::kFailoverPrimaryCrash);
  } else {
    fields.emplace_back(field::kPrimary, vocabulary::kFailoverPrimaryPartition);
    fields.emplace_back(field::kBetween, RawJson{between});
    fields.emplace_back(field::kForNs, fault.heal_after);
  }
  simulation_->record_fields(vocabulary::proc::kNemesis, EventKind::kFaultBegin, fields);
  return true;
}

bool Nemesis::delay_spike(std::vector<NodeId> targets, Duration extra, Duration length) {
  const std::string target = names_json(targets);
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, fault_kind_name(FaultKind::kDelaySpike)},
                       {field::kTarget, RawJson{target}},
                       {field::kExtraNs, extra},
                       {field::kForNs, length}});
  const sim::DelaySpikeId spike = simulation_->network().add_delay_spike(extra, std::move(targets));
  simulation_->schedule(simulation_->now() + length, [this, spike, target] {
    simulation_->network().remove_delay_spike(spike);
    simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                        {{field::kKind, fault_kind_name(FaultKind::kDelaySpike)}, {field::kTarget, RawJson{target}}});
  });
  return true;
}

bool Nemesis::starve_renewal(NodeId worker, Duration length) {
  const std::optional<sim::ProcessId> renewal = simulation_->find_process(worker, "renewal");
  if (!renewal) {
    return false;  // not renewing now: nothing to starve
  }
  const std::string name = name_of(worker);
  simulation_->record(
      vocabulary::proc::kNemesis, EventKind::kFaultBegin,
      {{field::kKind, fault_kind_name(FaultKind::kStarveRenewal)}, {field::kTarget, name}, {field::kForNs, length}});
  simulation_->pause_process(*renewal);
  simulation_->schedule(simulation_->now() + length, [this, renewal, name] {
    simulation_->resume_process(*renewal);
    simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                        {{field::kKind, fault_kind_name(FaultKind::kStarveRenewal)}, {field::kTarget, name}});
  });
  return true;
}

}  // namespace locksim::model
