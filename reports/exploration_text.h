#pragma once
// What `locksim explore` tells of an exploration: the heading before the
// search, then the counterexample — its sizes, its faults, the story in
// words, its critical events and how to replay the minimal file — or that
// none was found; and the same as JSON for --json.

#include <string>

#include "explore/exploration.h"
#include "scenario/scenario.h"

namespace locksim::reports {

// "explore NAME: seed S, up to N tests, fencing-off" and what it looks for.
[[nodiscard]] std::string exploration_heading(const scenario::Scenario& scenario, const explore::ExploreGoal& goal,
                                              const explore::SearchOptions& options);

// What was found (the minimal file written to `minimal_path`), or that nothing was.
[[nodiscard]] std::string exploration_text(const scenario::Scenario& scenario, const explore::Exploration& exploration,
                                           const std::string& minimal_path);

// The --json document (docs/cli.md, explore), indented, with a final newline.
[[nodiscard]] std::string exploration_json(const scenario::Scenario& scenario, const explore::Exploration& exploration,
                                           const std::string& minimal_path);

}  // namespace locksim::reports
