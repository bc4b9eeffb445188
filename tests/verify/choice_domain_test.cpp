#include "verify/choice_domain.h"

#include <gtest/gtest.h>

namespace locksim::verify {
namespace {

using sim::Distribution;
using sim::Duration;

std::vector<Duration> values(const std::vector<DurationValue>& domain) {
  std::vector<Duration> result;
  for (const DurationValue& value : domain) result.push_back(value.value);
  return result;
}

TEST(ChoiceDomain, AUniformLengthOffersItsMedianFirstThenItsEnds) {
  const auto domain = duration_domain(Distribution::uniform(Duration::milliseconds(100), Duration::seconds(2)),
                                      std::nullopt, {});
  EXPECT_EQ(values(domain),
            (std::vector{Duration::milliseconds(1050), Duration::milliseconds(100), Duration::seconds(2)}));
  EXPECT_EQ(why_text(domain[0].reason), "median");
}

TEST(ChoiceDomain, ALengthThatRacesALeaseAlsoOffersJustShortOfAndJustPastTheLeaseLeft) {
  const auto domain = duration_domain(Distribution::uniform(Duration::milliseconds(100), Duration::seconds(2)),
                                      Duration::milliseconds(500), {});
  EXPECT_EQ(values(domain), (std::vector{Duration::milliseconds(1050), Duration::milliseconds(100), Duration::seconds(2),
                                         Duration::milliseconds(499), Duration::milliseconds(501)}));
}

TEST(ChoiceDomain, ACriticalValueOutsideTheSupportIsNotOffered) {
  const auto uniform = duration_domain(Distribution::uniform(Duration::seconds(12), Duration::seconds(20)),
                                       Duration::seconds(10), {});
  EXPECT_EQ(uniform.size(), 3u) << "10s ± 1ms lies below the pause's 12 s minimum";
  const auto fixed = duration_domain(Distribution::constant(Duration::seconds(15)), Duration::seconds(10), {});
  ASSERT_EQ(fixed.size(), 1u);
  EXPECT_EQ(why_text(fixed[0].reason), "the fixed value");
}

TEST(ChoiceDomain, AnUnboundedTailIsCutAtItsPercentiles) {
  const auto log_normal =
      duration_domain(Distribution::log_normal(Duration::milliseconds(1), Duration::milliseconds(20)), std::nullopt, {});
  ASSERT_EQ(log_normal.size(), 3u);
  EXPECT_EQ(log_normal[0].value, Duration::milliseconds(1));
  EXPECT_EQ(log_normal[1].value, Duration::microseconds(50));  // median² / p99
  EXPECT_EQ(why_text(log_normal[1].reason), "1st percentile");
  EXPECT_EQ(log_normal[2].value, Duration::milliseconds(20));
  const auto exponential = duration_domain(Distribution::exponential(Duration::seconds(1)), std::nullopt, {});
  EXPECT_EQ(exponential[1].value, Duration::zero());
  EXPECT_NEAR(static_cast<double>(exponential[0].value.count_ns()), 0.693147e9, 1e3);
  EXPECT_NEAR(static_cast<double>(exponential[2].value.count_ns()), 4.60517e9, 1e4);
}

TEST(ChoiceDomain, TheWideDomainAddsTheQuartiles) {
  const auto domain =
      duration_domain(Distribution::uniform(Duration::zero(), Duration::seconds(4)), std::nullopt, {.quartiles = true});
  EXPECT_EQ(values(domain), (std::vector{Duration::seconds(2), Duration::zero(), Duration::seconds(4), Duration::seconds(1),
                                         Duration::seconds(3)}));
}

TEST(ChoiceDomain, IntegersOfferTheirMedianAndEndsOrEveryValue) {
  EXPECT_EQ(below_domain(10, false), (std::vector<std::uint64_t>{4, 0, 9}));
  EXPECT_EQ(below_domain(2, false), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(below_domain(1, false), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(below_domain(3, true), (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST(ChoiceDomain, AChanceOffersTheLikelierOutcomeFirstAndTheOtherOnlyIfItCanHappen) {
  EXPECT_EQ(chance_domain(1.0 / 6), (std::vector{false, true}));
  EXPECT_EQ(chance_domain(0.9), (std::vector{true, false}));
  EXPECT_EQ(chance_domain(0.0), (std::vector{false}));
  EXPECT_EQ(chance_domain(1.0), (std::vector{true}));
}

}  // namespace
}  // namespace locksim::verify
