#include "runner/live_agreement.h"

#include <algorithm>

#include "runner/fisher_exact.h"

namespace locksim::runner {

std::vector<KindAgreement> compare_live_with_simulated(const ScenarioSummary& live, const ScenarioSummary& simulated) {
  std::vector<KindAgreement> agreement;
  for (const ModeSummary& live_mode : live.modes) {
    const auto simulated_mode = std::ranges::find(simulated.modes, live_mode.mode, &ModeSummary::mode);
    if (simulated_mode == simulated.modes.end()) continue;
    for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
      KindAgreement entry{live_mode.mode, kind, live_mode.runs_with_any(kind), live_mode.runs,
                          simulated_mode->runs_with_any(kind), simulated_mode->runs};
      entry.p = fisher_exact_p(entry.live_runs_with, entry.live_runs, entry.simulated_runs_with, entry.simulated_runs);
      agreement.push_back(entry);
    }
  }
  return agreement;
}

}  // namespace locksim::runner
