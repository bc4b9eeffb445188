#include "scenario/plan.h"

#include <fmt/core.h>

#include "model/system.h"
#include "scenario/scenario_limits.h"
#include "sim/random.h"
#include "vocabulary/worker_name.h"

namespace locksim::scenario {
namespace {

std::vector<std::string> group_members(const Scenario& scenario, TargetGroup group) {
  std::vector<std::string> members;
  for (const std::string& name : scenario_node_names(scenario)) {
    const bool worker = vocabulary::is_worker(name);
    const bool service = !worker && name != "storage";
    if (group == TargetGroup::kAny || (group == TargetGroup::kWorkers && worker) ||
        (group == TargetGroup::kService && service)) {
      members.push_back(name);
    }
  }
  return members;
}

std::string draw_target(const Scenario& scenario, const FaultSpec& fault, sim::Rng& rng) {
  if (fault.target.group == TargetGroup::kNamed) return fault.target.node;
  const std::vector<std::string> members = group_members(scenario, fault.target.group);
  return members[rng.below(members.size())];
}

PlannedFault concrete(const Scenario& scenario, const FaultSpec& fault, std::size_t index, sim::Rng& rng) {
  std::string target = draw_target(scenario, fault, rng);
  return plan_fault(fault, index, std::move(target), fault.length.sample(rng));
}

}  // namespace

std::vector<std::string> fault_targets(const Scenario& scenario, const FaultSpec& fault) {
  // Partitions and failovers act on no one node; their target, if any, is
  // whose event triggers them.
  if (fault.target.group == TargetGroup::kNamed) return {fault.target.node};
  return group_members(scenario, fault.target.group);
}

PlannedFault plan_fault(const FaultSpec& fault, std::size_t index, std::string target, Duration length) {
  return PlannedFault{index, std::move(target), AtTime{}, length, fault.params};
}

std::vector<std::string> scenario_node_names(const Scenario& scenario) {
  return model::System::node_names(scenario.system);
}

Plan make_plan(const Scenario& scenario, std::uint64_t seed) {
  const sim::RandomStreams streams{seed};
  Plan plan;
  plan.seed = seed;

  if (scenario.drift_ppm > 0) {
    sim::Rng clocks = streams.stream("plan/clocks");
    for (const std::string& node : scenario_node_names(scenario)) {
      plan.drift_ppb[node] = clocks.between(-scenario.drift_ppm, scenario.drift_ppm) * 1000;
    }
  }

  sim::Rng starts = streams.stream("plan/starts");
  for (const std::string& worker : group_members(scenario, TargetGroup::kWorkers)) {
    plan.worker_starts[worker] = scenario.system.workers.start.sample(starts);
  }

  // Swarm testing: each seed enables a random non-empty subset of the faults.
  std::vector<bool> enabled(scenario.faults.size(), true);
  if (scenario.swarm && !scenario.faults.empty()) {
    sim::Rng swarm = streams.stream("plan/swarm");
    bool any = false;
    for (std::size_t index = 0; index < enabled.size(); ++index) {
      enabled[index] = swarm.chance(0.5);
      any = any || enabled[index];
    }
    if (!any) {
      enabled[swarm.below(enabled.size())] = true;
    }
  }

  for (std::size_t index = 0; index < scenario.faults.size(); ++index) {
    if (!enabled[index]) continue;
    const FaultSpec& fault = scenario.faults[index];
    sim::Rng rng = streams.stream(fmt::format("plan/faults/{}", index));
    if (const auto* rate = std::get_if<AtRate>(&fault.trigger)) {
      // A Poisson process over the run: exponential gaps with the rate's mean.
      const Distribution gap = Distribution::exponential(
          Duration::nanoseconds(static_cast<std::int64_t>(60e9 / rate->per_minute)));
      // The parser keeps the mean number of occurrences far below the cap, so
      // the cap only bounds the work if a draw were ever that unlucky.
      for (Duration at = gap.sample(rng); at < scenario.duration && plan.faults.size() < kMostPlannedOccurrences;
           at += gap.sample(rng)) {
        PlannedFault planned = concrete(scenario, fault, index, rng);
        planned.trigger = AtTime{at};
        plan.faults.push_back(std::move(planned));
      }
      continue;
    }
    PlannedFault planned = concrete(scenario, fault, index, rng);
    if (const auto* at = std::get_if<AtTime>(&fault.trigger)) {
      planned.trigger = *at;
    } else {
      planned.trigger = std::get<OnEvent>(fault.trigger);
    }
    plan.faults.push_back(std::move(planned));
  }
  return plan;
}

}  // namespace locksim::scenario
