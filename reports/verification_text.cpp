#include "reports/verification_text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/counterexample_story.h"
#include "runner/scenario_run.h"
#include "scenario/fencing_modes.h"
#include "sim/duration_text.h"
#include "verify/choice_domain.h"

namespace locksim::reports {
namespace {

using nlohmann::ordered_json;

std::string plural(std::int64_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string goal_text(const explore::ExploreGoal& goal) {
  return fmt::format("{} ({})", explore::kind_names(goal.kinds), scenario::fencing_mode_name(goal.mode));
}

std::vector<checker::ViolationKind> kinds_shown(const verify::VerifiedRun& run, const explore::ExploreGoal& goal) {
  std::vector<checker::ViolationKind> shown;
  for (const checker::ViolationKind kind : goal.kinds) {
    if (run.run.verdict.violation_count(kind).value_or(0) > 0) shown.push_back(kind);
  }
  return shown;
}

std::string statement(const verify::Verification& verification) {
  const int checked = verification.levels_done - 1;
  return fmt::format("no run with at most {} shows {}: {} checked in {:.1f} s",
                     plural(checked, "deviation", "deviations"), goal_text(verification.goal),
                     plural(verification.runs, "run", "runs"), verification.seconds);
}

std::string deviation_text(const verify::ChoicePoint& point) {
  return fmt::format("{}: {}, not {}", point.site(), point.chosen, point.default_text);
}

}  // namespace

std::string bounds_text(const verify::Bounds& bounds) {
  return fmt::format(
      "at most {}; each draw's domain is its default (the median, or the fixed value), its min and max "
      "(the 1st and 99th percentiles of an unbounded tail){}; for a length that races a lease (work, the "
      "check-to-write gap, a fault's length), also the lease left ± {}; for a message to storage, also, within that "
      "span, the delays that land {} before and after another worker's next access; a target may be any the fault "
      "allows; a fault "
      "may also strike at its target's first {} events of each anchor kind;{} draws of one site within one lease epoch "
      "share one choice",
      plural(bounds.deviations, "deviation", "deviations"), bounds.domain.quartiles ? ", its quartiles" : "",
      sim::format_duration(verify::kCriticalMargin), sim::format_duration(verify::kCriticalMargin), bounds.anchors,
      bounds.extra_faults == 0
          ? ""
          : fmt::format(" up to {} like the file's first pause (or crash) may be added, on any node, each one "
                        "deviation;",
                        plural(bounds.extra_faults, "more fault", "more faults")));
}

std::string verification_heading(const scenario::Scenario& scenario, const explore::ExploreGoal& goal,
                                 const verify::Bounds& bounds, std::size_t choice_points,
                                 const std::vector<std::int64_t>& runs_per_level) {
  std::int64_t total = 0;
  std::vector<std::string> levels;
  for (std::size_t level = 0; level < runs_per_level.size(); ++level) {
    total += runs_per_level[level];
    levels.push_back(fmt::format("{}: {}", level, runs_per_level[level]));
  }
  return fmt::format(
      "verify {}: every run with at most {}\nlooking for {}: {}\n"
      "the run with no deviation meets {} choice points; about {} runs in all ({})\n",
      scenario.name, plural(bounds.deviations, "deviation", "deviations"), goal_text(goal), goal.reason,
      choice_points, total, fmt::join(levels, ", "));
}

std::string verification_progress(const verify::Progress& progress, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(progress.runs) / seconds : 0.0;
  const std::int64_t left = std::max<std::int64_t>(0, progress.runs_expected - progress.runs);
  return fmt::format("level {}: {} of about {} runs, {:.0f} runs/s, about {:.0f} s left", progress.level, progress.runs,
                     progress.runs_expected, rate, rate > 0 ? static_cast<double>(left) / rate : 0.0);
}

std::string verification_text(const verify::Verification& verification, const std::vector<std::string>& history,
                              const std::string& file) {
  std::string text;
  if (!verification.counterexample) {
    text = statement(verification) + fmt::format(" ({} simulations)\n", verification.simulations);
  } else {
    const verify::VerifiedRun& found = *verification.counterexample;
    const std::vector<verify::ChoicePoint> deviations = found.deviations();
    text = fmt::format("counterexample with {}, after {}: it shows {}\n", plural(deviations.size(), "deviation", "deviations"),
                       plural(verification.runs, "run", "runs"),
                       explore::kind_names(kinds_shown(found, verification.goal)));
    if (deviations.empty()) text += "  every draw at its default: the file as written shows it\n";
    for (const verify::ChoicePoint& point : deviations) text += fmt::format("  {}\n", deviation_text(point));
    if (verification.levels_done > 0) {
      text += "  (every run with fewer deviations was checked: none shows it)\n";
    }
    const auto violation = std::find_if(found.run.verdict.violations.begin(), found.run.verdict.violations.end(),
                                        [&](const checker::Violation& v) {
                                          return std::ranges::count(verification.goal.kinds, v.kind) > 0;
                                        });
    if (violation != found.run.verdict.violations.end()) {
      text += "what happened:\n";
      for (const std::string& line : counterexample_story(history, *violation)) text += fmt::format("  {}\n", line);
    }
    text += fmt::format("written to {}\n  {}\n", file, runner::replay_command(file, verification.goal.mode));
  }
  text += fmt::format("bounds: {}\n", bounds_text(verification.bounds));
  std::vector<std::string> shown;
  for (const auto& [kind, count] : verification.runs_showing) {
    shown.push_back(fmt::format("{} {}", checker::violation_kind_name(kind), count));
  }
  if (!shown.empty()) text += fmt::format("runs showing each violation: {}\n", fmt::join(shown, ", "));
  return text;
}

std::string verification_json(const scenario::Scenario& scenario, const verify::Verification& verification,
                              const std::string& file) {
  ordered_json runs_showing = ordered_json::object();
  for (const auto& [kind, count] : verification.runs_showing) runs_showing[std::string{checker::violation_kind_name(kind)}] = count;
  ordered_json json{{"scenario", scenario.name},
                    {"file", scenario.file},
                    {"mode", scenario::fencing_mode_name(verification.goal.mode)},
                    {"looking_for", explore::kind_names(verification.goal.kinds)},
                    {"reason", verification.goal.reason},
                    {"bounds",
                     {{"deviations", verification.bounds.deviations},
                      {"anchors", verification.bounds.anchors},
                      {"faults", verification.bounds.extra_faults},
                      {"domain", verification.bounds.domain.quartiles ? "wide" : "standard"},
                      {"text", bounds_text(verification.bounds)}}},
                    {"runs", verification.runs},
                    {"simulations", verification.simulations},
                    {"seconds", verification.seconds},
                    {"deviations_checked", verification.levels_done - 1},
                    {"runs_showing", std::move(runs_showing)}};
  if (!verification.counterexample) {
    json["statement"] = statement(verification);
    json["counterexample"] = nullptr;
  } else {
    json["statement"] = nullptr;
    ordered_json deviations = ordered_json::array();
    for (const verify::ChoicePoint& point : verification.counterexample->deviations()) {
      deviations.push_back({{"site", point.site()}, {"value", point.chosen}, {"default", point.default_text}});
    }
    ordered_json shown = ordered_json::array();
    for (const checker::ViolationKind kind : kinds_shown(*verification.counterexample, verification.goal)) {
      shown.push_back(checker::violation_kind_name(kind));
    }
    json["counterexample"] = {{"deviations", std::move(deviations)}, {"shows", std::move(shown)}, {"file", file}};
  }
  return json.dump(2) + "\n";
}

}  // namespace locksim::reports
