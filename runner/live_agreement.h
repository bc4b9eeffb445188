#pragma once
// Whether a live run and the simulator agree (`live --compare-sim`): per
// fencing mode and violation kind, the share of runs that had it live
// against the share of the same seeds simulated. They disagree when
// Fisher's exact test rejects equal shares at p < kDisagreementP; the runs
// are few, so a smaller difference than the test can see is not a
// disagreement (docs/live.md, "Live as the referee", gives the power).

#include <cstdint>
#include <vector>

#include "checker/violation.h"
#include "model/options.h"
#include "runner/summary.h"

namespace locksim::runner {

inline constexpr double kDisagreementP = 0.01;

struct KindAgreement {
  model::Fencing mode = model::Fencing::kOff;
  checker::ViolationKind kind = checker::ViolationKind::kDoubleGrant;
  std::int64_t live_runs_with = 0;
  std::int64_t live_runs = 0;
  std::int64_t simulated_runs_with = 0;
  std::int64_t simulated_runs = 0;
  double p = 1;  // Fisher's exact test, two-sided

  [[nodiscard]] bool agree() const { return p >= kDisagreementP; }
};

// Every violation kind of every mode both summaries ran, in mode then report order.
[[nodiscard]] std::vector<KindAgreement> compare_live_with_simulated(const ScenarioSummary& live,
                                                                     const ScenarioSummary& simulated);

}  // namespace locksim::runner
