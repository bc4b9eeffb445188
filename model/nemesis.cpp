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
  after_event(std::vector<std::string>{std::move(proc)}, event, nth, delay, std::move(fault));
}

void Nemesis::after_event(std::vector<std::string> procs, EventKind event, int nth, Duration delay,
                          std::function<void()> fault) {
  auto seen = std::make_shared<int>(0);
  simulation_->observe([this, procs = std::move(procs), event, nth, delay, seen, fault = std::move(fault)](
                           std::string_view recorded_proc, EventKind recorded_event, std::span<const Field>) {
    if (recorded_event != event || std::find(procs.begin(), procs.end(), recorded_proc) == procs.end() ||
        ++*seen != nth) {
      return;
    }
    // Scheduled, not run inline: the recording process is mid-step. It runs
    // before that process's next step (models yield after fault points).
    simulation_->schedule(simulation_->now() + delay, fault);
  });
}

bool Nemesis::apply(const BoundFault& fault) {
  if (fault.at_leader) {
    // No leader at that moment (an election under way): nothing to strike.
    const std::optional<sim::NodeId> leader = system_->service().leader();
    if (!leader) return false;
    BoundFault struck = fault;
    struck.target = leader;
    struck.at_leader = false;
    return apply(struck);
  }
  return std::visit([this, &fault](const auto& params) { return act(fault, params); }, fault.params);
}

template <class Params>
void Nemesis::record_begin(const Params& params, const Field& target, const BoundFault& fault,
                           std::optional<Field> between) {
  std::vector<Field> fields{{field::kKind, fault_kind_name(Params::kKind)}, target};
  if (between) fields.push_back(*between);
  for (const FaultNumber& number : params.numbers()) fields.emplace_back(number.field, number.value);
  if constexpr (kTakesLength<Params>) fields.emplace_back(field::kForNs, fault.length);
  simulation_->record_fields(vocabulary::proc::kNemesis, EventKind::kFaultBegin, fields);
}

void Nemesis::record_end(FaultKind kind, const Field& target) {
  simulation_->record(vocabulary::proc::kNemesis, EventKind::kFaultEnd, {{field::kKind, fault_kind_name(kind)}, target});
}

bool Nemesis::pause(NodeId target, Duration length) { return apply({target, length, faults::Pause{}}); }
bool Nemesis::crash(NodeId target, std::optional<Duration> restart_after) {
  return apply({target, {}, faults::Crash{restart_after}});
}
bool Nemesis::power_loss(NodeId target, std::optional<Duration> restart_after) {
  return apply({target, {}, faults::PowerLoss{restart_after}});
}
bool Nemesis::memory_pressure(NodeId target, int keys, Duration length) {
  return apply({target, length, faults::MemoryPressure{keys}});
}
bool Nemesis::jump_clock(NodeId target, Duration by) { return apply({target, {}, faults::ClockJump{by}}); }
bool Nemesis::drift_clock(NodeId target, std::int64_t drift_ppm) {
  return apply({target, {}, faults::ClockDrift{drift_ppm}});
}
bool Nemesis::partition(std::vector<NodeId> side_a, std::vector<NodeId> side_b, Duration length) {
  return apply({std::nullopt, length, faults::PartitionOf<NodeId>{std::move(side_a), std::move(side_b)}});
}
bool Nemesis::delay_spike(NodeId target, Duration extra, Duration length) {
  return apply({target, length, faults::DelaySpike{extra}});
}
bool Nemesis::starve_renewal(NodeId worker, Duration length) { return apply({worker, length, faults::StarveRenewal{}}); }

bool Nemesis::act(const BoundFault& fault, const faults::Pause& params) {
  const NodeId target = *fault.target;
  if (!simulation_->is_up(target)) {
    return false;
  }
  const std::string name = name_of(target);
  record_begin(params, {field::kTarget, name}, fault);
  if (pause_depth_[target.index]++ == 0) {
    simulation_->pause(target);
  }
  simulation_->schedule(simulation_->now() + fault.length, [this, target, name] {
    if (--pause_depth_[target.index] == 0 && simulation_->is_up(target)) {
      simulation_->resume(target);
    }
    record_end(FaultKind::kPause, {field::kTarget, name});
  });
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::Crash& params) {
  const NodeId target = *fault.target;
  if (!simulation_->is_up(target)) {
    return false;
  }
  const std::string name = name_of(target);
  record_begin(params, {field::kTarget, name}, fault);
  pause_depth_.erase(target.index);
  system_->crash(target);
  if (params.restart_after) {
    simulation_->schedule(simulation_->now() + *params.restart_after, [this, target, name] {
      system_->restart(target);
      record_end(FaultKind::kCrash, {field::kTarget, name});
    });
  }
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::PowerLoss& params) {
  const NodeId target = *fault.target;
  if (!simulation_->is_up(target)) {
    return false;
  }
  const std::string name = name_of(target);
  record_begin(params, {field::kTarget, name}, fault);
  pause_depth_.erase(target.index);
  system_->power_loss(target);
  if (params.restart_after) {
    simulation_->schedule(simulation_->now() + *params.restart_after, [this, target, name] {
      system_->restart(target);
      record_end(FaultKind::kPowerLoss, {field::kTarget, name});
    });
  }
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::MemoryPressure& params) {
  const NodeId target = *fault.target;
  if (!system_->can_press_memory(target)) {
    return false;
  }
  const std::string name = name_of(target);
  record_begin(params, {field::kTarget, name}, fault);
  const bool room_freed = system_->press_memory(target, params.evict);
  if (fault.length <= Duration::zero()) return true;  // over at once: no fault.end
  if (!room_freed) system_->hold_over_maxmemory(target, +1);
  simulation_->schedule(simulation_->now() + fault.length, [this, target, name, room_freed] {
    if (!room_freed) system_->hold_over_maxmemory(target, -1);
    record_end(FaultKind::kMemoryPressure, {field::kTarget, name});
  });
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::ClockJump& params) {
  const std::string name = name_of(*fault.target);
  record_begin(params, {field::kTarget, name}, fault);
  simulation_->jump_clock(*fault.target, params.by);
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::ClockDrift& params) {
  const std::string name = name_of(*fault.target);
  record_begin(params, {field::kTarget, name}, fault);
  simulation_->set_clock_drift(*fault.target, params.ppm * 1000);
  return true;
}

std::string Nemesis::names_json(const std::vector<NodeId>& nodes) const {
  std::string json = "[";
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    json += fmt::format("{}\"{}\"", index == 0 ? "" : ",", name_of(nodes[index]));
  }
  return json + "]";
}

bool Nemesis::act(const BoundFault& fault, const faults::PartitionOf<NodeId>& params) {
  const std::string between = fmt::format("[{},{}]", names_json(params.side_a), names_json(params.side_b));
  std::vector<NodeId> everyone = params.side_a;
  everyone.insert(everyone.end(), params.side_b.begin(), params.side_b.end());
  const std::string target = names_json(everyone);
  record_begin(params, {field::kTarget, RawJson{target}}, fault, Field{field::kBetween, RawJson{between}});
  const sim::PartitionId cut = simulation_->network().cut(params.side_a, params.side_b);
  simulation_->schedule(simulation_->now() + fault.length, [this, cut, target] {
    simulation_->network().heal(cut);
    record_end(FaultKind::kPartition, {field::kTarget, RawJson{target}});
  });
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::Failover& params) {
  return failover(FailoverFault{params.primary, params.with_primary, {}, fault.length});
}

bool Nemesis::act(const BoundFault& fault, const faults::DelaySpike& params) {
  std::vector<NodeId> targets{*fault.target};
  const std::string target = names_json(targets);
  record_begin(params, {field::kTarget, RawJson{target}}, fault);
  const sim::DelaySpikeId spike = simulation_->network().add_delay_spike(params.extra, std::move(targets));
  simulation_->schedule(simulation_->now() + fault.length, [this, spike, target] {
    simulation_->network().remove_delay_spike(spike);
    record_end(FaultKind::kDelaySpike, {field::kTarget, RawJson{target}});
  });
  return true;
}

bool Nemesis::act(const BoundFault& fault, const faults::StarveRenewal& params) {
  const NodeId worker = *fault.target;
  const std::optional<sim::ProcessId> renewal = simulation_->find_process(worker, "renewal");
  if (!renewal) {
    return false;  // not renewing now: nothing to starve
  }
  const std::string name = name_of(worker);
  record_begin(params, {field::kTarget, name}, fault);
  simulation_->pause_process(*renewal);
  simulation_->schedule(simulation_->now() + fault.length, [this, renewal, name] {
    simulation_->resume_process(*renewal);
    record_end(FaultKind::kStarveRenewal, {field::kTarget, name});
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

}  // namespace locksim::model
