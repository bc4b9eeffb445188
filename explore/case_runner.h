#pragma once
// Runs explore's cases in one fencing mode and says which of the goal's
// violation kinds each shows. Results are kept by run_key, so a shrink step
// that runs like one already tried costs nothing. A disagreement between the
// checker and the in-simulation oracle is an internal error (thrown).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/violation.h"
#include "explore/plan_space.h"
#include "model/options.h"
#include "runner/seed_run.h"

namespace locksim::explore {

class CaseRunner {
 public:
  CaseRunner(model::Fencing mode, std::vector<checker::ViolationKind> kinds);

  // The first of the kinds (in the goal's order) the run shows, if any.
  [[nodiscard]] std::optional<checker::ViolationKind> shown(const RunnableCase& runnable_case);
  [[nodiscard]] bool shows(const RunnableCase& runnable_case, checker::ViolationKind kind);

  // The whole run, with its history lines (for the story and the critical event).
  [[nodiscard]] runner::SeedRun run_watched(const RunnableCase& runnable_case, std::vector<std::string>& history) const;

  [[nodiscard]] std::int64_t simulations() const { return simulations_; }

 private:
  [[nodiscard]] const std::vector<checker::ViolationKind>& shown_kinds(const RunnableCase& runnable_case);

  model::Fencing mode_;
  std::vector<checker::ViolationKind> kinds_;
  std::map<std::string, std::vector<checker::ViolationKind>> shown_by_key_;  // every goal kind the run shows
  std::int64_t simulations_ = 0;
};

}  // namespace locksim::explore
