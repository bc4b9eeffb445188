#include "explore/minimal_scenario.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenario/fencing_modes.h"
#include "scenario/saved_plan.h"
#include "sim/duration_text.h"

namespace locksim::explore {
namespace {

using nlohmann::ordered_json;

// A constant distribution as the file writes one: its duration text.
std::optional<std::string> constant_text(const sim::Distribution& distribution) {
  if (const auto* constant = std::get_if<sim::Distribution::Constant>(&distribution.shape())) {
    return sim::format_duration(constant->value);
  }
  return std::nullopt;
}

void write_sizes(ordered_json& document, const scenario::Scenario& scenario) {
  document["workers"]["count"] = scenario.system.workers.count;
  if (const auto* billing = std::get_if<model::BillingWorkload>(&scenario.system.workload)) {
    document["workload"]["customers"] = billing->customers;
  } else {
    std::visit([&](const auto& workload) {
      if constexpr (!std::is_same_v<std::decay_t<decltype(workload)>, model::BillingWorkload>) {
        document["workload"]["jobs"] = workload.jobs;
      }
    }, scenario.system.workload);
  }
  if (std::optional<std::string> delay = constant_text(scenario.network.delay)) document["network"]["delay"] = *delay;
  if (std::optional<std::string> work = constant_text(scenario.system.workers.work)) document["workers"]["work"] = *work;
}

}  // namespace

std::string minimal_scenario_json(const MinimalScenarioText& text, const RunnableCase& minimal, const ExploreGoal& goal,
                                  checker::ViolationKind kind) {
  ordered_json document = ordered_json::parse(scenario::saved_plan_json(text.original, minimal.scenario, minimal.plan));
  const std::string mode{scenario::fencing_mode_name(goal.mode)};
  document["name"] = minimal.scenario.name + "-minimal";
  document["description"] = fmt::format("A minimal counterexample of {}, found by {}: {} {}", minimal.scenario.name,
                                        text.found_by, text.summary, minimal.scenario.description);
  write_sizes(document, minimal.scenario);
  document["storage"]["fencing"] = scenario::fencing_switch_name(goal.mode);
  document.erase("probes_required");
  const std::string bound = goal.meaning == GoalMeaning::kShowHazard ? ">0" : "==0";
  ordered_json expected = ordered_json::object({{checker::violation_kind_name(kind), bound}});
  if (text.stopped_short) expected["stopped_short"] = ">0";
  document["expect"] = ordered_json::object({{mode, expected}});
  return document.dump(2) + "\n";
}

}  // namespace locksim::explore
