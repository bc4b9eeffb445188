#include "sim/local_clock.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace locksim::sim {
namespace {

using namespace literals;

Time at(Duration since_start) { return Time{} + since_start; }
LocalTime reads(Duration since_start) { return LocalTime{} + since_start; }

TEST(LocalClock, WithoutDriftReadsTrueTimePlusItsOffset) {
  const LocalClock clock{reads(5_s)};
  EXPECT_EQ(clock.read(at(0_s)), reads(5_s));
  EXPECT_EQ(clock.read(at(10_s)), reads(15_s));
}

TEST(LocalClock, DriftMakesItRunFastOrSlow) {
  const LocalClock fast{LocalTime{}, 100'000};  // 100 ppm fast
  EXPECT_EQ(fast.read(at(10_s)), reads(10_s + 1_ms));
  const LocalClock slow{LocalTime{}, -100'000};
  EXPECT_EQ(slow.read(at(10_s)), reads(10_s - 1_ms));
}

TEST(LocalClock, JumpsMoveTheReadingForwardAndBack) {
  LocalClock clock;
  clock.jump(at(6_s), -(5_s));
  EXPECT_EQ(clock.read(at(6_s)), reads(1_s));
  EXPECT_EQ(clock.read(at(10_s)), reads(5_s));
  clock.jump(at(10_s), 30_s);
  EXPECT_EQ(clock.read(at(10_s)), reads(35_s));
}

TEST(LocalClock, ChangingDriftDoesNotJumpTheReading) {
  LocalClock clock;
  clock.set_drift(at(10_s), 500'000);  // from 10 s on, 0.05 % fast
  EXPECT_EQ(clock.read(at(10_s)), reads(10_s));
  EXPECT_EQ(clock.read(at(20_s)), reads(20_s + 5_ms));
}

TEST(LocalClock, WhenReadsFindsTheTrueTimeOfALocalDeadline) {
  LocalClock clock{LocalTime{}, -200'000};  // slow: a local 10 s takes longer
  const Time fire = clock.when_reads(reads(10_s), at(0_s));
  EXPECT_GE(clock.read(fire), reads(10_s));
  EXPECT_LT(clock.read(fire - 1_ns), reads(10_s));
  EXPECT_GT(fire, at(10_s));
  EXPECT_EQ(clock.when_reads(reads(1_s), at(5_s)), at(5_s));  // already past: now
}

RC_GTEST_PROP(LocalClock, WhenReadsIsTheFirstNanosecondReachingTheReading,
              (std::int32_t drift_ppm, std::uint32_t offset_ms, std::uint32_t target_ms, std::uint32_t now_ms)) {
  const std::int64_t drift_ppb = static_cast<std::int64_t>(drift_ppm % 400'000) * 1000;
  const LocalClock clock{reads(Duration::milliseconds(offset_ms % 100'000)), drift_ppb};
  const Time now = at(Duration::milliseconds(now_ms % 100'000));
  const LocalTime target = reads(Duration::milliseconds(target_ms % 1'000'000));
  const Time fire = clock.when_reads(target, now);
  RC_ASSERT(fire >= now);
  RC_ASSERT(clock.read(fire) >= target);
  if (fire > now) {
    RC_ASSERT(clock.read(fire - 1_ns) < target);
  }
}

// The reading is exactly floor(elapsed · (1e9 + drift) / 1e9) after the
// anchor, whether the product fits in 64 bits (the fast path) or not: the
// elapsed times reach a century, the drifts the whole allowed range.
RC_GTEST_PROP(LocalClock, ReadingIsTheExactlyFlooredDriftedElapsedTime,
              (std::int32_t drift_seed, std::uint64_t elapsed_seed, std::int32_t offset_ms)) {
  const std::int64_t drift_ppb = drift_seed % LocalClock::kMaxDriftPpb;
  constexpr std::uint64_t kCenturyNs = 100ULL * 365 * 24 * 3600 * 1'000'000'000;
  const auto elapsed = static_cast<std::int64_t>(elapsed_seed % kCenturyNs);
  const LocalClock clock{reads(Duration::milliseconds(offset_ms)), drift_ppb};
  __extension__ using Wide = __int128;
  const Wide product = Wide{elapsed} * drift_ppb;
  Wide correction = product / 1'000'000'000;
  if (product % 1'000'000'000 != 0 && product < 0) --correction;
  const auto expected = static_cast<std::int64_t>(Wide{elapsed} + correction);
  RC_ASSERT(clock.read(at(Duration::nanoseconds(elapsed))) ==
            reads(Duration::milliseconds(offset_ms)) + Duration::nanoseconds(expected));
}

RC_GTEST_PROP(LocalClock, ReadingNeverDecreasesWithoutAJump, (std::int32_t drift_ppm, std::uint32_t a, std::uint32_t b)) {
  const LocalClock clock{LocalTime{}, static_cast<std::int64_t>(drift_ppm % 400'000) * 1000};
  const Time earlier = at(Duration::microseconds(std::min(a, b)));
  const Time later = at(Duration::microseconds(std::max(a, b)));
  RC_ASSERT(clock.read(earlier) <= clock.read(later));
}

}  // namespace
}  // namespace locksim::sim
