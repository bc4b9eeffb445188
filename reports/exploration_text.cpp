#include "reports/exploration_text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/counterexample_story.h"
#include "reports/plan_text.h"
#include "runner/scenario_run.h"
#include "scenario/fencing_modes.h"
#include "scenario/scenario_parser.h"

namespace locksim::reports {
namespace {

using nlohmann::ordered_json;

ordered_json critical_json(const explore::CriticalEvent& event) {
  const auto nanos = [](const std::optional<sim::Duration>& value) {
    return value ? ordered_json(value->count_ns()) : ordered_json(nullptr);
  };
  if (!event.setting.empty()) {
    return {{"setting", event.setting},         {"needed", event.needed},
            {"length_ns", nanos(event.length)}, {"threshold_ns", nanos(event.threshold)},
            {"statement", event.statement}};
  }
  return {{"fault", event.fault},           {"kind", scenario::fault_kind_name(event.kind)},
          {"target", event.target},         {"needed", event.needed},
          {"length", event.length_name},    {"length_ns", nanos(event.length)},
          {"threshold_ns", nanos(event.threshold)}, {"lease_ns", nanos(event.lease)},
          {"lease_left_ns", nanos(event.lease_left)}, {"statement", event.statement}};
}

std::string replay_of_minimal(const explore::Exploration& exploration, const std::string& minimal_path) {
  const explore::Finding& found = *exploration.finding;
  return runner::replay_command(scenario::parse_scenario(found.minimal_file_text, minimal_path),
                                found.counterexample.minimal.seed, exploration.goal.mode);
}

std::string counterexample_text(const scenario::Scenario& scenario, const explore::Exploration& exploration,
                                 const std::string& minimal_path) {
  const explore::Finding& found = *exploration.finding;
  const explore::Counterexample& found_case = found.counterexample;
  const std::size_t faults_found = explore::runnable(scenario, found_case.found).plan.faults.size();
  std::string text = fmt::format("found {} in {}; shrunk in {} steps ({} runs{}):\n",
                                 checker::violation_kind_name(found_case.kind),
                                 explore::found_where(found_case, exploration.seed), found_case.shrink_steps,
                                 found_case.shrink_runs, found_case.shrink_cut_short ? ", cut short" : "");
  text += fmt::format("  from {}\n  to   {}, seed {}\n", case_sizes_text(found_case.found, faults_found),
                      case_sizes_text(found_case.minimal, found.minimal.plan.faults.size()), found_case.minimal.seed);
  for (const scenario::PlannedFault& fault : found.minimal.plan.faults) text += fmt::format("  {}\n", planned_fault_text(fault));
  if (const std::string starts = worker_starts_text(found.minimal.plan); !starts.empty()) text += fmt::format("  {}\n", starts);
  text += "what happened:\n";
  for (const std::string& line : counterexample_story(found.history, found.violation)) text += fmt::format("  {}\n", line);
  for (const explore::CriticalEvent& event : found.critical) text += fmt::format("critical event: {}\n", event.statement);
  return text + fmt::format("minimal plan written to {}\n  {}\n", minimal_path, replay_of_minimal(exploration, minimal_path));
}

ordered_json counterexample_json(const explore::Exploration& exploration, const std::string& minimal_path) {
  const explore::Finding& found = *exploration.finding;
  const explore::Counterexample& found_case = found.counterexample;
  ordered_json faults = ordered_json::array();
  for (const scenario::PlannedFault& fault : found.minimal.plan.faults) faults.push_back(planned_fault_text(fault));
  ordered_json critical = ordered_json::array();
  for (const explore::CriticalEvent& event : found.critical) critical.push_back(critical_json(event));
  return {{"kind", std::string{checker::violation_kind_name(found_case.kind)}},
          {"test", found_case.test},
          {"scenario_seed", found_case.run_seed ? ordered_json(*found_case.run_seed) : ordered_json()},
          {"shrink_steps", found_case.shrink_steps},
          {"shrink_runs", found_case.shrink_runs},
          {"run_seed", found_case.minimal.seed},
          {"workers", found_case.minimal.workers},
          {"jobs", found_case.minimal.jobs},
          {"faults", faults},
          {"story", counterexample_story(found.history, found.violation)},
          {"critical_events", critical},
          {"minimal_file", minimal_path}};
}

}  // namespace

std::string exploration_heading(const scenario::Scenario& scenario, const explore::ExploreGoal& goal,
                                const explore::SearchOptions& options) {
  return fmt::format("explore {}: the scenario's first {} seeds, then up to {} tests from search seed {}; {}\n"
                     "looking for {}: {}\n",
                     scenario.name, options.from_seeds.value_or(explore::seeds_to_run_first(scenario)), options.tests,
                     options.seed, scenario::fencing_mode_name(goal.mode), explore::kind_names(goal.kinds), goal.reason);
}

std::string exploration_text(const scenario::Scenario& scenario, const explore::Exploration& exploration,
                             const std::string& minimal_path) {
  if (exploration.finding) return counterexample_text(scenario, exploration, minimal_path);
  std::string text = fmt::format("{} seeds and {} tests passed: no run showed {} ({} simulations)\n",
                                 exploration.seeds_run, exploration.tests_run, explore::kind_names(exploration.goal.kinds),
                                 exploration.simulations);
  if (exploration.goal.meaning == explore::GoalMeaning::kShowHazard) text += "the hazard the file claims was not shown\n";
  return text;
}

std::string exploration_json(const scenario::Scenario& scenario, const explore::Exploration& exploration,
                             const std::string& minimal_path) {
  ordered_json json{{"scenario", scenario.name},
                    {"file", scenario.file},
                    {"seed", exploration.seed},
                    {"mode", scenario::fencing_mode_name(exploration.goal.mode)},
                    {"looking_for", explore::kind_names(exploration.goal.kinds)},
                    {"reason", exploration.goal.reason},
                    {"seeds_run", exploration.seeds_run},
                    {"tests_run", exploration.tests_run},
                    {"found", exploration.finding.has_value()}};
  if (exploration.finding) json["counterexample"] = counterexample_json(exploration, minimal_path);
  json["simulations"] = exploration.simulations;
  return json.dump(2) + "\n";
}

}  // namespace locksim::reports
