#include "reports/plan_text.h"

#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "scenario/saved_plan.h"
#include "sim/duration_text.h"
#include "vocabulary/worker_name.h"

namespace locksim::reports {
namespace {

std::string trigger_text(const scenario::PlannedFault& fault) {
  if (const auto* at = std::get_if<scenario::AtTime>(&fault.trigger)) {
    return fmt::format("at {}", sim::format_duration(at->at));
  }
  const auto& on_event = std::get<scenario::OnEvent>(fault.trigger);
  return fmt::format("{} after its {} #{}", sim::format_duration(on_event.delay),
                     vocabulary::event_kind_name(scenario::watched_event(on_event.when)), on_event.nth);
}

}  // namespace

std::string planned_fault_text(const scenario::PlannedFault& fault) {
  std::string text = fmt::format("faults[{}] {} ", fault.index, scenario::fault_kind_name(fault.kind()));
  if (!fault.target.empty()) text += fault.target + " ";
  text += trigger_text(fault);
  if (const auto* jump = std::get_if<model::faults::ClockJump>(&fault.params)) {
    text += fmt::format(", by {}", sim::format_duration(jump->by));
  } else if (const auto* spike = std::get_if<model::faults::DelaySpike>(&fault.params)) {
    text += fmt::format(", {} extra for {}", sim::format_duration(spike->extra), sim::format_duration(fault.length));
  } else if (std::holds_alternative<model::faults::Pause>(fault.params) ||
             std::holds_alternative<model::faults::Partition>(fault.params) ||
             std::holds_alternative<model::faults::StarveRenewal>(fault.params)) {
    text += fmt::format(", for {}", sim::format_duration(fault.length));
  }
  return text;
}

std::string worker_starts_text(const scenario::Plan& plan) {
  std::vector<std::pair<sim::Duration, std::string>> in_order;
  for (const auto& [worker, start] : plan.worker_starts) in_order.emplace_back(start, worker);
  if (std::ranges::all_of(in_order, [](const auto& entry) { return entry.first == sim::Duration::zero(); })) return "";
  // Equal starts in worker order (by number: the map's order puts worker-10 before worker-2).
  std::ranges::sort(in_order, {}, [](const auto& entry) {
    return std::pair{entry.first, vocabulary::worker_number(entry.second)};
  });
  std::vector<std::string> parts;
  for (const auto& [start, worker] : in_order) parts.push_back(fmt::format("{} at {}", worker, sim::format_duration(start)));
  return fmt::format("workers begin: {}", fmt::join(parts, ", "));
}

std::string case_sizes_text(const explore::ExploreCase& point, std::size_t faults) {
  std::string text = fmt::format("{} worker{}, {} job{} each, {} fault{}", point.workers, point.workers == 1 ? "" : "s",
                                 point.jobs, point.jobs == 1 ? "" : "s", faults, faults == 1 ? "" : "s");
  if (point.network_delay_us) {
    text += fmt::format(", network delay {}", sim::format_duration(sim::Duration::microseconds(*point.network_delay_us)));
  }
  if (point.work_us) text += fmt::format(", work {}", sim::format_duration(sim::Duration::microseconds(*point.work_us)));
  return text;
}

std::vector<std::string> plan_lines(const scenario::Plan& plan, std::int64_t run_end_ns) {
  std::vector<std::string> lines;
  std::size_t after_the_end = 0;
  for (const scenario::PlannedFault& fault : plan.faults) {
    const auto* at = std::get_if<scenario::AtTime>(&fault.trigger);
    if (at != nullptr && at->at.count_ns() > run_end_ns) {
      ++after_the_end;
    } else {
      lines.push_back(planned_fault_text(fault));
    }
  }
  if (std::string starts = worker_starts_text(plan); !starts.empty()) lines.push_back(std::move(starts));
  if (after_the_end > 0) {
    lines.push_back(fmt::format("{} more planned after the run ended at {}: never fired", after_the_end,
                                sim::format_duration(sim::Duration::nanoseconds(run_end_ns))));
  }
  return lines;
}

}  // namespace locksim::reports
