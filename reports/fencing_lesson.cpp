#include "reports/fencing_lesson.h"

#include <algorithm>

#include <fmt/format.h>

#include "scenario/fencing_modes.h"

namespace locksim::reports {
namespace {

const runner::ModeSummary* mode_of(const runner::ScenarioSummary& summary, model::Fencing mode) {
  const auto found = std::ranges::find(summary.modes, mode, &runner::ModeSummary::mode);
  return found == summary.modes.end() ? nullptr : &*found;
}

std::string comparison(checker::ViolationKind kind, const runner::ModeSummary& off, const runner::ModeSummary& on) {
  const std::int64_t with_off = off.runs_with_any(kind);
  const std::int64_t with_on = on.runs_with_any(kind);
  const std::string name{checker::violation_kind_name(kind)};
  const std::string shares =
      fmt::format("{} without fencing, {} with it", runs_share_text(with_off, off.runs), runs_share_text(with_on, on.runs));
  if (with_off > 0 && with_on == 0) return fmt::format("{}: {} — fencing stopped it here.", name, shares);
  if (with_off == with_on && off.runs == on.runs) return fmt::format("{}: {} — fencing did not change how often.", name, shares);
  return fmt::format("{}: {}.", name, shares);
}

}  // namespace

std::string runs_share_text(std::int64_t runs_with, std::int64_t runs) {
  if (runs_with == 0) return fmt::format("none of {} runs", runs);
  if (runs_with == runs) return runs == 1 ? "the one run" : fmt::format("all {} runs", runs);
  // Whole percent, except where rounding would say 0 % or 100 % of something that is neither.
  const double percent = 100.0 * static_cast<double>(runs_with) / static_cast<double>(runs);
  const std::string shown = percent < 1 || percent > 99 ? fmt::format("{:.1f}", percent) : fmt::format("{:.0f}", percent);
  return fmt::format("{} of {} runs ({}%)", runs_with, runs, shown);
}

std::vector<std::string> fencing_lessons(const runner::ScenarioSummary& summary) {
  const runner::ModeSummary* off = mode_of(summary, model::Fencing::kOff);
  const runner::ModeSummary* on = mode_of(summary, model::Fencing::kOn);
  std::vector<std::string> lessons;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    const bool happened = std::ranges::any_of(summary.modes, [&](const runner::ModeSummary& mode) {
      return mode.runs_with_any(kind) > 0;
    });
    if (!happened) continue;
    if (off != nullptr && on != nullptr) {
      lessons.push_back(comparison(kind, *off, *on));
      continue;
    }
    const runner::ModeSummary& only = summary.modes.front();
    lessons.push_back(fmt::format("{}: {} ({}).", checker::violation_kind_name(kind),
                                  runs_share_text(only.runs_with_any(kind), only.runs),
                                  scenario::fencing_mode_name(only.mode)));
  }
  if (lessons.empty()) {
    const std::int64_t runs = summary.modes.empty() ? 0 : summary.modes.front().runs;
    lessons.push_back(summary.modes.size() > 1
                          ? fmt::format("No violation in {} runs, with fencing or without.", runs)
                          : fmt::format("No violation in {} runs.", runs));
  }
  return lessons;
}

}  // namespace locksim::reports
