#include "verify/chosen_plan.h"

#include <fmt/core.h>

#include "explore/plan_space.h"
#include "scenario/scenario_limits.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/worker_name.h"

namespace locksim::verify {
namespace {

using scenario::FaultSpec;
using scenario::OnEvent;
using scenario::PlannedFault;

std::string chosen_target(const scenario::Scenario& scenario, const FaultSpec& fault, const std::string& subject,
                          ScriptedChooser& chooser) {
  if (fault.target.group == scenario::TargetGroup::kNamed) return fault.target.node;
  const std::vector<std::string> members = scenario::fault_targets(scenario, fault);
  return members[chooser.choose_every({"fault target", subject, {}}, members.size(), members)];
}

// The file's trigger, or one of the target's first `anchors` events of each kind it has.
void choose_trigger(const scenario::Scenario& scenario, const FaultSpec& fault, const std::string& subject, int anchors,
                    ScriptedChooser& chooser, PlannedFault& planned) {
  if (const auto* at = std::get_if<scenario::AtTime>(&fault.trigger)) {
    planned.trigger = *at;
  } else {
    planned.trigger = std::get<OnEvent>(fault.trigger);
  }
  if (planned.target.empty() || anchors <= 0) return;
  std::vector<OnEvent> triggers;
  std::vector<std::string> names{"the file's trigger"};
  for (const scenario::TriggerEvent when : explore::anchors_of_node(scenario, planned.target)) {
    for (int nth = 1; nth <= anchors; ++nth) {
      triggers.push_back(OnEvent{when, nth, sim::Duration::zero()});
      names.push_back(fmt::format("at {}'s {} #{}", planned.target,
                                  vocabulary::event_kind_name(scenario::watched_event(when)), nth));
    }
  }
  if (triggers.empty()) return;
  const std::uint64_t index = chooser.choose_every({"fault trigger", subject, {}}, names.size(), names);
  if (index > 0) planned.trigger = triggers[index - 1];
}

}  // namespace

scenario::Plan chosen_plan(const scenario::Scenario& scenario, ScriptedChooser& chooser, int anchors,
                           int extra_faults) {
  scenario::Plan plan;
  plan.seed = 1;  // what no site asks the chooser for (Sentinel's timer, an eviction's sample)

  if (scenario.drift_ppm > 0) {
    const auto bound = static_cast<std::uint64_t>(2 * scenario.drift_ppm + 1);
    for (const std::string& node : scenario::scenario_node_names(scenario)) {
      const auto drawn = static_cast<std::int64_t>(chooser.choose_below({"clock drift", node, {}}, bound));
      if (drawn != scenario.drift_ppm) plan.drift_ppb[node] = (drawn - scenario.drift_ppm) * 1000;
    }
  }
  for (const std::string& node : scenario::scenario_node_names(scenario)) {
    if (!vocabulary::is_worker(node)) continue;
    plan.worker_starts[node] = chooser.choose_duration({"workers.start", node, {}}, scenario.system.workers.start);
  }

  const std::size_t first_extra = scenario.faults.size() - static_cast<std::size_t>(extra_faults);
  for (std::size_t index = 0; index < scenario.faults.size(); ++index) {
    const FaultSpec& fault = scenario.faults[index];
    const std::string subject = fmt::format("faults[{}]", index);
    if (index >= first_extra &&
        chooser.choose_every({"extra fault", subject, {}}, 2, {"absent", "present: another " + std::string{
                                                                   scenario::fault_kind_name(fault.kind())}}) == 0) {
      continue;
    }
    // Lengths are chosen when the fault strikes; the plan keeps the median for its text.
    const sim::Duration length = duration_domain(fault.length, std::nullopt, {}).front().value;
    if (const auto* rate = std::get_if<scenario::AtRate>(&fault.trigger)) {
      const auto gap = sim::Duration::nanoseconds(static_cast<std::int64_t>(60e9 / rate->per_minute));
      int occurrence = 0;
      for (sim::Duration at = gap; at < scenario.duration && plan.faults.size() < scenario::kMostPlannedOccurrences;
           at += gap) {
        const std::string occurrence_subject = fmt::format("{}#{}", subject, ++occurrence);
        PlannedFault planned =
            scenario::plan_fault(fault, index, chosen_target(scenario, fault, occurrence_subject, chooser), length);
        planned.trigger = scenario::AtTime{at};
        plan.faults.push_back(std::move(planned));
      }
      continue;
    }
    PlannedFault planned = scenario::plan_fault(fault, index, chosen_target(scenario, fault, subject, chooser), length);
    choose_trigger(scenario, fault, subject, anchors, chooser, planned);
    plan.faults.push_back(std::move(planned));
  }
  return plan;
}

}  // namespace locksim::verify
