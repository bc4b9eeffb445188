#include "explore/explore_goal.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "scenario/fencing_modes.h"

namespace locksim::explore {
namespace {

using checker::ViolationKind;
using scenario::Expectation;

std::optional<ViolationKind> violation_kind_of(const scenario::Measure& measure) {
  if (const auto* kind = std::get_if<ViolationKind>(&measure)) return *kind;
  if (const auto* of = std::get_if<scenario::IncidentsOf>(&measure)) return of->kind;
  return std::nullopt;
}

bool applies_in(const Expectation& expectation, model::Fencing mode) {
  return !expectation.mode || *expectation.mode == mode;
}

// Fails when nothing happens (">0", ">=1", ">2%").
bool claims_hazard(const Expectation& expectation) {
  return !scenario::bound_holds(expectation.bound, 0, 0, 1);
}

// A total that one run with one violation breaks ("==0", "<1"); shares of
// runs are rules over many seeds, not per run.
bool forbids_in_one_run(const Expectation& expectation) {
  return expectation.bound.scale == scenario::Scale::kTotal && scenario::bound_holds(expectation.bound, 0, 0, 1) &&
         !scenario::bound_holds(expectation.bound, 1, 1, 1);
}

// Harm to data first (what a lesson and a CI failure are about), then the
// lock's own violations from the most specific cause to the most general
// consequence: a double holder follows from most of the others.
constexpr std::array kGoalOrder{ViolationKind::kStaleWrite,     ViolationKind::kLostUpdate, ViolationKind::kDuplicateEffect,
                                ViolationKind::kForeignRelease, ViolationKind::kStuckLock,  ViolationKind::kTokenOrder,
                                ViolationKind::kDoubleGrant,    ViolationKind::kDoubleHolder};

template <typename Rule>
std::vector<ViolationKind> kinds_where(const scenario::Scenario& scenario, model::Fencing mode, Rule rule) {
  std::vector<ViolationKind> kinds;
  for (const ViolationKind kind : kGoalOrder) {
    const bool named = std::ranges::any_of(scenario.expect, [&](const Expectation& expectation) {
      return violation_kind_of(expectation.measure) == kind && applies_in(expectation, mode) && rule(expectation);
    });
    if (named) kinds.push_back(kind);
  }
  return kinds;
}

}  // namespace

std::string kind_names(const std::vector<ViolationKind>& kinds) {
  std::string names;
  for (const ViolationKind kind : kinds) {
    names += (names.empty() ? "" : ", ") + std::string{checker::violation_kind_name(kind)};
  }
  return names;
}

ExploreGoal choose_goal(const scenario::Scenario& scenario, std::optional<ViolationKind> target,
                        std::optional<model::Fencing> fencing) {
  const std::vector<model::Fencing> modes = fencing ? std::vector{*fencing} : scenario.fencing_modes;
  if (target) {
    ExploreGoal goal{modes.front(), {*target}, GoalMeaning::kBreakSafety, ""};
    for (const model::Fencing mode : modes) {
      if (std::ranges::count(kinds_where(scenario, mode, claims_hazard), *target) > 0) {
        goal.mode = mode;
        goal.meaning = GoalMeaning::kShowHazard;
        break;
      }
    }
    goal.reason = fmt::format("--target {} with {}{}", checker::violation_kind_name(*target),
                              scenario::fencing_mode_name(goal.mode),
                              goal.meaning == GoalMeaning::kShowHazard ? " (the file expects it: >0)" : "");
    return goal;
  }
  for (const model::Fencing mode : modes) {
    if (auto kinds = kinds_where(scenario, mode, claims_hazard); !kinds.empty()) {
      std::string reason = fmt::format("the file expects {} with {} (>0): show it as small as it gets",
                                       kind_names(kinds), scenario::fencing_mode_name(mode));
      return {mode, std::move(kinds), GoalMeaning::kShowHazard, std::move(reason)};
    }
  }
  for (const model::Fencing mode : modes) {
    if (auto kinds = kinds_where(scenario, mode, forbids_in_one_run); !kinds.empty()) {
      std::string reason = fmt::format("the file expects no {} with {} (==0): look for a run that breaks it",
                                       kind_names(kinds), scenario::fencing_mode_name(mode));
      return {mode, std::move(kinds), GoalMeaning::kBreakSafety, std::move(reason)};
    }
  }
  const model::Fencing mode = fencing.value_or(model::Fencing::kOn);
  std::vector kinds{ViolationKind::kStaleWrite, ViolationKind::kLostUpdate, ViolationKind::kDuplicateEffect};
  std::string reason = fmt::format("the file states no per-run rule: look for harm ({}) with {}", kind_names(kinds),
                                   scenario::fencing_mode_name(mode));
  return {mode, std::move(kinds), GoalMeaning::kBreakSafety, std::move(reason)};
}

}  // namespace locksim::explore
