#include "goal_flags.h"

#include <fmt/format.h>

#include "command.h"
#include "scenario/fencing_modes.h"

namespace locksim::cli {
namespace {

std::optional<checker::ViolationKind> target_kind(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    if (checker::violation_kind_name(kind) == name) return kind;
  }
  const std::vector<checker::ViolationKind> all(checker::kAllViolationKinds.begin(), checker::kAllViolationKinds.end());
  throw BadInput(fmt::format("--target {}: not a violation kind; expected one of {}", name, explore::kind_names(all)));
}

}  // namespace

explore::ExploreGoal goal_from_flags(const scenario::Scenario& scenario, const std::string& target,
                                     const std::string& fencing) {
  const std::optional<model::Fencing> mode =
      fencing.empty() ? std::nullopt : std::optional{scenario::fencing_modes_from_switch(fencing)->front()};
  return explore::choose_goal(scenario, target_kind(target), mode);
}

}  // namespace locksim::cli
