// Fisher's exact test against known values: the lady tasting tea (3 of 4
// against 1 of 4, p = 0.4857 as R's fisher.test gives it), and others
// evaluated separately with exact fractions (Python, math.comb).
#include "runner/fisher_exact.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>

#include "runner/live_agreement.h"

namespace locksim::runner {
namespace {

TEST(FisherExact, MatchesKnownValues) {
  EXPECT_NEAR(fisher_exact_p(3, 4, 1, 4), 0.4857142857, 1e-9);
  EXPECT_NEAR(fisher_exact_p(0, 10, 10, 10), 1.082508822e-05, 1e-12);
  EXPECT_NEAR(fisher_exact_p(0, 20, 10, 20), 4.359197908e-04, 1e-11);
  EXPECT_NEAR(fisher_exact_p(4, 10, 9, 10), 0.05727554180, 1e-9);
  EXPECT_NEAR(fisher_exact_p(0, 20, 6, 20), 0.02019602020, 1e-9);
  EXPECT_NEAR(fisher_exact_p(3, 20, 12, 20), 0.007911693674, 1e-10);
  EXPECT_NEAR(fisher_exact_p(10, 20, 10, 20), 1.0, 1e-9);
}

TEST(FisherExact, NoRunsOnASideIsNoEvidence) {
  EXPECT_DOUBLE_EQ(fisher_exact_p(0, 0, 5, 10), 1.0);
  EXPECT_DOUBLE_EQ(fisher_exact_p(5, 10, 0, 0), 1.0);
}

RC_GTEST_PROP(FisherExact, IsAProbabilitySymmetricInItsSidesAndOneForEqualShares, ()) {
  const auto a_runs = *rc::gen::inRange<std::int64_t>(1, 60);
  const auto b_runs = *rc::gen::inRange<std::int64_t>(1, 60);
  const auto a_hits = *rc::gen::inRange<std::int64_t>(0, a_runs + 1);
  const auto b_hits = *rc::gen::inRange<std::int64_t>(0, b_runs + 1);
  const double p = fisher_exact_p(a_hits, a_runs, b_hits, b_runs);
  RC_ASSERT(p > 0.0);
  RC_ASSERT(p <= 1.0);
  RC_ASSERT(std::abs(p - fisher_exact_p(b_hits, b_runs, a_hits, a_runs)) < 1e-9);
  // Swapping hits for misses on both sides is the same table read the other way.
  RC_ASSERT(std::abs(p - fisher_exact_p(a_runs - a_hits, a_runs, b_runs - b_hits, b_runs)) < 1e-9);
  RC_ASSERT(fisher_exact_p(a_hits, a_runs, a_hits, a_runs) > 0.999999);
}

ScenarioSummary summary_with(std::int64_t runs, std::int64_t stale_write_runs) {
  ModeSummary mode = empty_mode_summary(model::Fencing::kOff, 0);
  mode.runs = runs;
  mode.runs_with[checker::ViolationKind::kStaleWrite] = stale_write_runs;
  ScenarioSummary summary;
  summary.modes.push_back(mode);
  return summary;
}

TEST(LiveAgreement, TwentyRunsEachWayTellNoneFromHalfButNotTwoFromFour) {
  const auto stale_write = [](const std::vector<KindAgreement>& agreement) {
    return *std::ranges::find(agreement, checker::ViolationKind::kStaleWrite, &KindAgreement::kind);
  };
  const std::vector<KindAgreement> apart = compare_live_with_simulated(summary_with(20, 0), summary_with(20, 10));
  EXPECT_EQ(apart.size(), checker::kAllViolationKinds.size());
  EXPECT_FALSE(stale_write(apart).agree()) << stale_write(apart).p;
  EXPECT_EQ(stale_write(apart).live_runs_with, 0);
  EXPECT_EQ(stale_write(apart).simulated_runs_with, 10);
  EXPECT_TRUE(stale_write(compare_live_with_simulated(summary_with(20, 2), summary_with(20, 4))).agree());
  for (const KindAgreement& other : apart) {
    if (other.kind == checker::ViolationKind::kStaleWrite) continue;
    EXPECT_TRUE(other.agree()) << "0 of 20 both ways";
  }
}

}  // namespace
}  // namespace locksim::runner
