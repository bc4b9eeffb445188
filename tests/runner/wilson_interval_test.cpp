// The 95 % Wilson score interval against known values: 0/10, 1/10, 5/10
// and 10/10 as R's prop.test(correct = FALSE) gives them; the others from
// the closed form evaluated separately (Python, z = 1.959964).
#include "runner/wilson_interval.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace locksim::runner {
namespace {

constexpr double kTolerance = 5e-6;

void expect_interval(std::int64_t hits, std::int64_t runs, double rate, double low, double high) {
  const ShareWithInterval share = wilson_interval(hits, runs);
  EXPECT_NEAR(share.rate, rate, kTolerance) << hits << "/" << runs;
  EXPECT_NEAR(share.low, low, kTolerance) << hits << "/" << runs;
  EXPECT_NEAR(share.high, high, kTolerance) << hits << "/" << runs;
}

TEST(WilsonInterval, MatchesKnownValues) {
  expect_interval(0, 10, 0.0, 0.0, 0.277533);
  expect_interval(5, 10, 0.5, 0.236593, 0.763407);
  expect_interval(10, 10, 1.0, 0.722467, 1.0);
  expect_interval(1, 10, 0.1, 0.017876, 0.404150);
  expect_interval(134, 200, 0.67, 0.602167, 0.731426);
  expect_interval(0, 40, 0.0, 0.0, 0.087622);
}

TEST(WilsonInterval, NoRunsIsRateZeroAndTheWholeRange) {
  const ShareWithInterval share = wilson_interval(0, 0);
  EXPECT_EQ(share.rate, 0.0);
  EXPECT_EQ(share.low, 0.0);
  EXPECT_EQ(share.high, 1.0);
}

RC_GTEST_PROP(WilsonInterval, ContainsTheRateAndStaysInsideZeroToOne, ()) {
  const auto runs = *rc::gen::inRange<std::int64_t>(1, 100'000);
  const auto hits = *rc::gen::inRange<std::int64_t>(0, runs + 1);
  const ShareWithInterval share = wilson_interval(hits, runs);
  RC_ASSERT(0.0 <= share.low);
  RC_ASSERT(share.low <= share.rate);
  RC_ASSERT(share.rate <= share.high);
  RC_ASSERT(share.high <= 1.0);
}

}  // namespace
}  // namespace locksim::runner
