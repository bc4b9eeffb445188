#pragma once
// What `locksim verify` prints: the heading (the goal, the bounds and how
// many runs they imply), the bound statement or the counterexample told in
// words, and the --json document.

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "verify/verification.h"

namespace locksim::reports {

// The bounds in words: what a statement covers.
[[nodiscard]] std::string bounds_text(const verify::Bounds& bounds);

[[nodiscard]] std::string verification_heading(const scenario::Scenario& scenario, const explore::ExploreGoal& goal,
                                               const verify::Bounds& bounds, std::size_t choice_points,
                                               const std::vector<std::int64_t>& runs_per_level);

// "level 2: 12,345 of about 93,412 runs, 4,100 runs/s, about 20 s left"
[[nodiscard]] std::string verification_progress(const verify::Progress& progress, double seconds);

// `history`: the counterexample's lines (for its story); `file`: where it was written.
[[nodiscard]] std::string verification_text(const verify::Verification& verification,
                                            const std::vector<std::string>& history, const std::string& file);

[[nodiscard]] std::string verification_json(const scenario::Scenario& scenario,
                                            const verify::Verification& verification, const std::string& file);

}  // namespace locksim::reports
