#include "reports/scenario_report.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "reports/plan_text.h"
#include "runner/scenario_run.h"
#include "runner/seed_run.h"
#include "runner/sweep_axis.h"
#include "scenario/plan.h"
#include "scenario/saved_plan.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_text.h"
#include "sim/duration_text.h"
#include "vocabulary/worker_name.h"

namespace locksim::reports {
namespace {

// The scenario's modes, fencing off first.
std::vector<model::Fencing> modes_off_first(const scenario::Scenario& scenario) {
  std::vector<model::Fencing> modes = scenario.fencing_modes;
  std::ranges::stable_sort(modes, [](model::Fencing a, model::Fencing b) {
    return a == model::Fencing::kOff && b != model::Fencing::kOff;
  });
  return modes;
}

// The plan to picture, run in every mode.
struct PictureSource {
  PicturedFrom from = PicturedFrom::kFirstSeed;
  scenario::Scenario scenario;  // the one the plan runs on (explore's has its sizes written in)
  scenario::Plan plan;
  scenario::Scenario replayed;  // the file the replay commands name
};

PictureSource picture_source(const scenario::Scenario& scenario, const runner::ScenarioSummary& summary,
                             const explore::Exploration& exploration, const std::string& minimal_plan_path) {
  if (exploration.finding) {
    const explore::Finding& finding = *exploration.finding;
    return {PicturedFrom::kExplore, finding.minimal.scenario, finding.minimal.plan,
            scenario::parse_scenario(finding.minimal_file_text, minimal_plan_path)};
  }
  std::optional<std::uint64_t> failing;
  for (const runner::ModeSummary& mode : summary.modes) {
    if (mode.first_failing_seed && (!failing || *mode.first_failing_seed < *failing)) failing = mode.first_failing_seed;
  }
  const std::uint64_t seed = failing.value_or(summary.first_seed);
  return {failing ? PicturedFrom::kFailingSeed : PicturedFrom::kFirstSeed, scenario, scenario::make_plan(scenario, seed),
          scenario};
}

// Where the fault `event` names began in the pictured run: its first span
// or marker of that kind on its target's lane, else on any lane (an
// untargeted partition or failover), drawn across every lane then.
std::optional<std::pair<std::int64_t, std::string>> fault_start(const explore::CriticalEvent& event,
                                                                const Timeline& timeline) {
  const std::string kind{scenario::fault_kind_name(event.kind)};
  std::optional<std::pair<std::int64_t, std::string>> anywhere;
  const auto consider = [&](std::size_t lane, std::int64_t time_ns) -> bool {
    if (timeline.lanes[lane].name == event.target) return true;
    if (!anywhere) anywhere = std::pair{time_ns, std::string{}};
    return false;
  };
  for (const FaultSpan& span : timeline.spans) {
    if (span.kind == kind && consider(span.lane, span.begin_ns)) return std::pair{span.begin_ns, event.target};
  }
  for (const FaultMarker& marker : timeline.markers) {
    if (marker.kind == kind && consider(marker.lane, marker.time_ns)) return std::pair{marker.time_ns, event.target};
  }
  return anywhere;
}

// "critical event: this pause — fails from 10.03039s (lease 10s)", for the picture.
std::optional<TimelineNote> critical_note(const explore::Exploration& exploration, const Timeline& timeline) {
  if (!exploration.finding) return std::nullopt;
  for (const explore::CriticalEvent& event : exploration.finding->critical) {
    if (!event.setting.empty() || !event.needed) continue;
    const auto start = fault_start(event, timeline);
    if (!start) continue;
    std::string text = fmt::format("critical event: this {}", scenario::fault_kind_name(event.kind));
    if (event.threshold) {
      text += fmt::format(" — fails from {}", sim::format_duration(*event.threshold));
      if (event.lease) text += fmt::format(" (lease {})", sim::format_duration(*event.lease));
    }
    return TimelineNote{text, start->first, start->second};
  }
  return std::nullopt;
}

// The checker's line for the first violation of each incident, in the verdict's order.
std::vector<std::string> incident_lines(const checker::HistoryVerdict& verdict) {
  std::vector<std::string> lines;
  std::set<std::pair<checker::ViolationKind, std::int64_t>> seen;
  for (const checker::Violation& violation : verdict.violations) {
    if (seen.insert({violation.kind, violation.incident}).second) lines.push_back(violation.detail);
  }
  return lines;
}

PicturedRun picture(const PictureSource& source, model::Fencing mode, std::uint64_t seed) {
  std::vector<TraceEntry> trace;
  const runner::SeedRun run =
      runner::run_plan(source.scenario, source.plan, mode, [&](std::string_view line, const sim::Simulation& simulation) {
        TraceEntry entry = trace_entry(line);
        if (const std::optional<sim::NodeId> node = simulation.find_node(entry.proc)) {
          entry.local_time_ns = simulation.local_time(*node).ns();
        }
        trace.push_back(std::move(entry));
      });
  return {mode, build_timeline(trace, run.verdict), std::nullopt, incident_lines(run.verdict),
          runner::replay_command(source.replayed, seed, mode), run.stopped_short ? run.why_stopped : std::string{}};
}

// The first pause of a worker whose length can be set: the page's natural
// parameter, swept from half the lease to twice it.
std::optional<std::size_t> worker_pause(const scenario::Scenario& scenario) {
  for (std::size_t index = 0; index < scenario.faults.size(); ++index) {
    const scenario::FaultSpec& fault = scenario.faults[index];
    if (fault.kind() != scenario::FaultKind::kPause) continue;
    if (fault.target.group == scenario::TargetGroup::kWorkers ||
        (fault.target.group == scenario::TargetGroup::kNamed && vocabulary::is_worker(fault.target.node))) {
      return index;
    }
  }
  return std::nullopt;
}

std::optional<PauseSweep> pause_sweep(const scenario::Scenario& scenario, const std::string& text,
                                      const ReportSettings& settings) {
  const std::optional<std::size_t> fault = worker_pause(scenario);
  const std::optional<sim::Duration> lease = scenario.system.lock.lease;
  if (!fault || !lease || lease->count_ns() < 2) return std::nullopt;
  const std::string vary =
      fmt::format("/faults/{}/for={}..{}:{}", *fault, sim::format_duration(*lease / 2),
                  sim::format_duration(*lease * 2), settings.sweep_steps);
  runner::SweepPlan plan = runner::plan_sweep(text, scenario.file, {runner::parse_vary(vary)});
  const std::uint64_t seeds =
      std::min<std::uint64_t>(settings.seeds.value_or(static_cast<std::uint64_t>(scenario.seeds)), settings.sweep_seeds_most);
  return PauseSweep{*fault, runner::run_sweep(std::move(plan), {seeds, settings.threads})};
}

}  // namespace

ScenarioReport gather_scenario_report(const scenario::Scenario& scenario, const ReportSettings& settings) {
  const std::string text = scenario::read_scenario_text(scenario.file);
  ScenarioReport report{scenario.name, scenario.description, scenario.file, scenario_parameters(text), {}, {}, {}, 0,
                        {}, {}, std::nullopt};

  runner::RunRequest request;
  request.first_seed = scenario.first_seed.value_or(1);
  request.seed_count = settings.seeds;
  request.threads = settings.threads;
  report.summary = runner::run_scenario(scenario, request);

  const explore::ExploreGoal goal = explore::choose_goal(scenario, std::nullopt, std::nullopt);
  report.exploration = explore::explore(scenario, goal, {.seed = settings.explore_seed, .tests = settings.explore_tests},
                                        settings.minimal_plan_path);

  const PictureSource source = picture_source(scenario, report.summary, report.exploration, settings.minimal_plan_path);
  report.pictured_from = source.from;
  report.pictured_seed = source.plan.seed;
  for (const model::Fencing mode : modes_off_first(scenario)) {
    PicturedRun run = picture(source, mode, source.plan.seed);
    if (source.from == PicturedFrom::kExplore && mode == goal.mode) run.note = critical_note(report.exploration, run.timeline);
    report.pictured.push_back(std::move(run));
  }
  std::int64_t pictured_end_ns = 0;
  for (const PicturedRun& run : report.pictured) pictured_end_ns = std::max(pictured_end_ns, run.timeline.end_ns);
  report.plan = plan_lines(source.plan, pictured_end_ns);
  report.sweep = pause_sweep(scenario, text, settings);
  const std::uint64_t seeds = settings.seeds.value_or(static_cast<std::uint64_t>(scenario.seeds));
  report.advice = advise::advise(scenario, {seeds, seeds * settings.advise_growth_most, settings.threads});
  return report;
}

}  // namespace locksim::reports
