#include "reports/readable_duration.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/duration_text.h"

namespace locksim::reports {
namespace {

TEST(ReadableDuration, BelowOneMicrosecondIsWholeNanoseconds) {
  EXPECT_EQ(readable_duration(0), "0ns");
  EXPECT_EQ(readable_duration(1), "1ns");
  EXPECT_EQ(readable_duration(999), "999ns");
}

TEST(ReadableDuration, EachUnitStartsAtOneOfIt) {
  EXPECT_EQ(readable_duration(1'000), "1us");
  EXPECT_EQ(readable_duration(1'000'000), "1ms");
  EXPECT_EQ(readable_duration(1'000'000'000), "1s");
  EXPECT_EQ(readable_duration(60'000'000'000), "1m");
}

TEST(ReadableDuration, RoundsToHundredthsOfTheUnitAndDropsTrailingZeros) {
  EXPECT_EQ(readable_duration(24'840'898'330), "24.84s");
  EXPECT_EQ(readable_duration(350'000'000), "350ms");
  EXPECT_EQ(readable_duration(12'000), "12us");
  EXPECT_EQ(readable_duration(1'500), "1.5us");
  EXPECT_EQ(readable_duration(1'005), "1.01us");  // half a hundredth rounds away from zero
  EXPECT_EQ(readable_duration(1'004), "1us");
  EXPECT_EQ(readable_duration(999'994), "999.99us");
}

TEST(ReadableDuration, AValueThatRoundsUpToAThousandUnitsMovesToTheNextUnit) {
  EXPECT_EQ(readable_duration(999'995), "1ms");
  EXPECT_EQ(readable_duration(999'995'000), "1s");
  EXPECT_EQ(readable_duration(59'995'000'000), "1m");
  EXPECT_EQ(readable_duration(59'994'999'999), "59.99s");
}

TEST(ReadableDuration, FromAMinuteOnItIsMinutesAndSeconds) {
  EXPECT_EQ(readable_duration(90'500'000'000), "1m30.5s");
  EXPECT_EQ(readable_duration(600'000'000'000), "10m");
  EXPECT_EQ(readable_duration(61'250'000'000), "1m1.25s");
}

TEST(ReadableDuration, NegativeDurationsCarryASign) {
  EXPECT_EQ(readable_duration(-350'000'000), "-350ms");
  EXPECT_EQ(readable_duration(-999), "-999ns");
  EXPECT_EQ(readable_duration(-60'000'000'000), "-1m");
  // The most negative value does not overflow: 2^63 ns is 153,722,867 min 16.85 s.
  EXPECT_EQ(readable_duration(std::numeric_limits<std::int64_t>::min()), "-153722867m16.85s");
}

RC_GTEST_PROP(ReadableDuration, NegatingADurationOnlyAddsTheSign, ()) {
  const std::int64_t duration_ns = *rc::gen::inRange<std::int64_t>(1, std::numeric_limits<std::int64_t>::max());
  RC_ASSERT(readable_duration(-duration_ns) == "-" + readable_duration(duration_ns));
}

RC_GTEST_PROP(ReadableDuration, BelowAMinuteTheTextIsWithinHalfAHundredthOfItsUnit, ()) {
  const std::int64_t duration_ns = *rc::gen::inRange<std::int64_t>(0, 60'000'000'000);
  const std::string text = readable_duration(duration_ns);
  const sim::DurationParse parsed = sim::parse_duration(text);
  RC_ASSERT(parsed.duration.has_value());
  // The unit the text is in: half a hundredth of it is the largest error.
  const std::int64_t unit_ns = text.ends_with("ns")   ? 1
                               : text.ends_with("us") ? 1'000
                               : text.ends_with("ms") ? 1'000'000
                               : text.ends_with("m")  ? 60'000'000'000
                                                      : 1'000'000'000;
  const std::int64_t error_ns = parsed.duration->count_ns() - duration_ns;
  RC_ASSERT(error_ns <= unit_ns / 200);
  RC_ASSERT(-error_ns <= unit_ns / 200);
}

TEST(SecondsText, ShowsOneFixedPrecisionRoundedDown) {
  EXPECT_EQ(seconds_text(47'210'999'999, SecondsPrecision::kMilliseconds), "47.210s");
  EXPECT_EQ(seconds_text(47'210'999'999, SecondsPrecision::kMicroseconds), "47.210999s");
  EXPECT_EQ(seconds_text(47'210'999'999, SecondsPrecision::kNanoseconds), "47.210999999s");
  EXPECT_EQ(seconds_text(0, SecondsPrecision::kMilliseconds), "0.000s");
  EXPECT_EQ(seconds_text(3'000'000'000, SecondsPrecision::kMicroseconds), "3.000000s");
}

TEST(SecondsText, NegativeTimesRoundDownTooSoTheOrderHolds) {
  EXPECT_EQ(seconds_text(-1, SecondsPrecision::kMilliseconds), "-0.001s");
  EXPECT_EQ(seconds_text(-1'000'000, SecondsPrecision::kMilliseconds), "-0.001s");
  EXPECT_EQ(seconds_text(-1'000'001, SecondsPrecision::kMilliseconds), "-0.002s");
  EXPECT_EQ(seconds_text(-2'500'000'000, SecondsPrecision::kMilliseconds), "-2.500s");
  EXPECT_EQ(seconds_text(std::numeric_limits<std::int64_t>::min(), SecondsPrecision::kNanoseconds),
            "-9223372036.854775808s");
}

}  // namespace
}  // namespace locksim::reports
