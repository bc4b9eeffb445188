#include "sim/distribution.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace locksim::sim {
namespace {

using namespace literals;

// Sorted samples, in nanoseconds, from a fixed seed (statistical bounds below
// are several standard errors wide, so the test is not flaky by construction
// and deterministic by seed).
std::vector<double> sorted_samples(const Distribution& distribution, std::uint64_t seed, int count = 200'000) {
  Rng rng{seed};
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    samples.push_back(static_cast<double>(distribution.sample(rng).count_ns()));
  }
  std::sort(samples.begin(), samples.end());
  return samples;
}

double mean_of(const std::vector<double>& samples) {
  double sum = 0;
  for (double sample : samples) sum += sample;
  return sum / static_cast<double>(samples.size());
}

double quantile_of(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
}

TEST(Distribution, ConstantAlwaysGivesItsValue) {
  Rng rng{1};
  const Distribution distribution = Distribution::constant(45_s);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(distribution.sample(rng), 45_s);
}

TEST(Distribution, UniformCoversItsRangeWithTheRightMean) {
  const auto samples = sorted_samples(Distribution::uniform(50_ms, 500_ms), 1);
  EXPECT_GE(samples.front(), 50e6);
  EXPECT_LE(samples.back(), 500e6);
  EXPECT_NEAR(mean_of(samples), 275e6, 275e6 * 0.01);
  EXPECT_NEAR(quantile_of(samples, 0.1), 95e6, 95e6 * 0.02);
}

TEST(Distribution, ExponentialHasItsMeanAndMedian) {
  const auto samples = sorted_samples(Distribution::exponential(10_ms), 2);
  EXPECT_NEAR(mean_of(samples), 10e6, 10e6 * 0.02);
  EXPECT_NEAR(quantile_of(samples, 0.5), 10e6 * std::log(2.0), 10e6 * std::log(2.0) * 0.02);
}

TEST(Distribution, LogNormalHasItsMedianAndP99) {
  const auto samples = sorted_samples(Distribution::log_normal(1_ms, 20_ms), 3);
  EXPECT_NEAR(quantile_of(samples, 0.5), 1e6, 1e6 * 0.02);
  EXPECT_NEAR(quantile_of(samples, 0.99), 20e6, 20e6 * 0.06);
}

TEST(Distribution, ParetoStartsAtItsMinWithTheRightMedian) {
  const auto samples = sorted_samples(Distribution::pareto(1_ms, 2.0), 4);
  EXPECT_GE(samples.front(), 1e6);
  // P(X > x) = (min/x)^alpha → median = min · 2^(1/alpha).
  EXPECT_NEAR(quantile_of(samples, 0.5), 1e6 * std::sqrt(2.0), 1e6 * std::sqrt(2.0) * 0.02);
  EXPECT_NEAR(quantile_of(samples, 0.99), 10e6, 10e6 * 0.06);
}

TEST(Distribution, HeavyTailsAreClampedToTheLongestSample) {
  const auto samples = sorted_samples(Distribution::pareto(1_s, 0.01), 5, 1000);
  EXPECT_EQ(samples.back(), static_cast<double>(Distribution::kLongestSample.count_ns()));
}

TEST(Distribution, ValidateNamesWhatIsWrong) {
  EXPECT_EQ(Distribution::validate(Distribution::Uniform{2_s, 1_s}), "max below min");
  EXPECT_EQ(Distribution::validate(Distribution::LogNormal{5_ms, 1_ms}), "p99 below the median");
  EXPECT_EQ(Distribution::validate(Distribution::Pareto{1_ms, -1.0}), "an alpha that is not a positive number");
  EXPECT_EQ(Distribution::validate(Distribution::Exponential{Duration::zero()}), "a mean that is not positive");
  EXPECT_EQ(Distribution::validate(Distribution::Constant{-(1_s)}), "a negative length");
  EXPECT_EQ(Distribution::validate(Distribution::Uniform{1_s, 2_s}), "");
}

TEST(Distribution, DescribesItselfReadably) {
  EXPECT_EQ(Distribution::uniform(50_ms, 500_ms).describe(), "uniform(50ms, 500ms)");
  EXPECT_EQ(Distribution::log_normal(1_ms, 20_ms).describe(), "lognormal(median 1ms, p99 20ms)");
  EXPECT_EQ(Distribution::constant(45_s).describe(), "45s");
}

RC_GTEST_PROP(Distribution, SameSeedGivesTheSameSamples, (std::uint64_t seed)) {
  const Distribution distribution = Distribution::log_normal(1_ms, 20_ms);
  Rng first{seed};
  Rng second{seed};
  for (int i = 0; i < 50; ++i) {
    RC_ASSERT(distribution.sample(first) == distribution.sample(second));
  }
}

}  // namespace
}  // namespace locksim::sim
