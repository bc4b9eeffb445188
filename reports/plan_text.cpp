#include "reports/plan_text.h"

#include <fmt/format.h>

#include "scenarios/saved_plan.h"
#include "sim/duration_text.h"

namespace locksim::reports {
namespace {

std::string trigger_text(const scenarios::PlannedFault& fault) {
  if (const auto* at = std::get_if<scenarios::AtTime>(&fault.trigger)) {
    return fmt::format("at {}", sim::format_duration(at->at));
  }
  const auto& on_event = std::get<scenarios::OnEvent>(fault.trigger);
  return fmt::format("{} after its {} #{}", sim::format_duration(on_event.delay),
                     vocabulary::event_kind_name(scenarios::watched_event(on_event.when)), on_event.nth);
}

}  // namespace

std::string planned_fault_text(const scenarios::PlannedFault& fault) {
  std::string text = fmt::format("faults[{}] {} ", fault.index, scenarios::fault_kind_name(fault.kind));
  if (!fault.target.empty()) text += fault.target + " ";
  text += trigger_text(fault);
  switch (fault.kind) {
    case scenarios::FaultKind::kPause:
    case scenarios::FaultKind::kPartition:
    case scenarios::FaultKind::kStarveRenewal: text += fmt::format(", for {}", sim::format_duration(fault.length)); break;
    case scenarios::FaultKind::kClockJump: text += fmt::format(", by {}", sim::format_duration(fault.by)); break;
    case scenarios::FaultKind::kDelaySpike:
      text += fmt::format(", {} extra for {}", sim::format_duration(fault.extra), sim::format_duration(fault.length));
      break;
    default: break;
  }
  return text;
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

}  // namespace locksim::reports
