#include "sim/duration_text.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace locksim::sim {
namespace {

using namespace literals;

Duration parsed(std::string_view text) {
  const DurationParse result = parse_duration(text);
  EXPECT_TRUE(result.duration.has_value()) << text << ": " << result.error;
  return result.duration.value_or(Duration::zero());
}

std::string error_of(std::string_view text) {
  const DurationParse result = parse_duration(text);
  EXPECT_FALSE(result.duration.has_value()) << text << " parsed unexpectedly";
  return result.error;
}

TEST(DurationText, ParsesEveryUnit) {
  EXPECT_EQ(parsed("7ns"), 7_ns);
  EXPECT_EQ(parsed("250us"), 250_us);
  EXPECT_EQ(parsed("20ms"), 20_ms);
  EXPECT_EQ(parsed("45s"), 45_s);
  EXPECT_EQ(parsed("2m"), 2_min);
  EXPECT_EQ(parsed("1h"), 60_min);
}

TEST(DurationText, ParsesDecimalFractionsExactly) {
  EXPECT_EQ(parsed("1.5s"), 1500_ms);
  EXPECT_EQ(parsed("0.001ms"), 1_us);
  EXPECT_EQ(parsed("0.5m"), 30_s);
  EXPECT_EQ(parsed("1.000000001s"), Duration::nanoseconds(1'000'000'001));
  EXPECT_EQ(parsed("2.0ns"), 2_ns);  // trailing zeros below a nanosecond are exact
}

TEST(DurationText, ParsesNegativeDurationsForClockJumps) { EXPECT_EQ(parsed("-5s"), -(5_s)); }

TEST(DurationText, RejectsMalformedTextSayingWhatWasExpected) {
  EXPECT_NE(error_of("").find("no number"), std::string::npos);
  EXPECT_NE(error_of("45").find("no unit"), std::string::npos);
  EXPECT_NE(error_of("45 s").find("unknown unit \" s\""), std::string::npos);
  EXPECT_NE(error_of("45sec").find("unknown unit \"sec\""), std::string::npos);
  EXPECT_NE(error_of("s").find("no number"), std::string::npos);
  EXPECT_NE(error_of("1.s").find("no digits after the decimal point"), std::string::npos);
  EXPECT_NE(error_of("1.5ns").find("finer than a nanosecond"), std::string::npos);
  EXPECT_NE(error_of("99999999999999999999s").find("too large"), std::string::npos);
  EXPECT_NE(error_of("3000000h").find("too large"), std::string::npos);
  EXPECT_NE(error_of("--5s").find("no number"), std::string::npos);
  EXPECT_EQ(error_of("45x"),
            "expected a duration like \"45s\", \"250ms\" or \"1.5s\" (units ns, us, ms, s, m, h), got \"45x\" "
            "(unknown unit \"x\")");
}

TEST(DurationText, ConvertsJsonMillisecondsRoundingToNanoseconds) {
  EXPECT_EQ(duration_from_milliseconds(250).duration, 250_ms);
  EXPECT_EQ(duration_from_milliseconds(0.5).duration, 500_us);
  EXPECT_EQ(duration_from_milliseconds(-5).duration, -(5_ms));
  EXPECT_FALSE(duration_from_milliseconds(1e300).duration.has_value());
  EXPECT_FALSE(duration_from_milliseconds(std::nan("")).duration.has_value());
}

TEST(DurationText, FormatsInTheLargestExactUnit) {
  EXPECT_EQ(format_duration(45_s), "45s");
  EXPECT_EQ(format_duration(1500_ms), "1.5s");
  EXPECT_EQ(format_duration(2_min), "2m");
  EXPECT_EQ(format_duration(90_s), "90s");
  EXPECT_EQ(format_duration(250_us), "250us");
  EXPECT_EQ(format_duration(7_ns), "7ns");
  EXPECT_EQ(format_duration(-(5_s)), "-5s");
  EXPECT_EQ(format_duration(Duration::zero()), "0s");
  EXPECT_EQ(format_duration(Duration::nanoseconds(1'000'000'001)), "1.000000001s");
}

RC_GTEST_PROP(DurationText, FormatThenParseIsTheIdentity, (std::int64_t nanoseconds)) {
  RC_PRE(nanoseconds != std::numeric_limits<std::int64_t>::min());
  const Duration duration = Duration::nanoseconds(nanoseconds);
  const DurationParse round_trip = parse_duration(format_duration(duration));
  RC_ASSERT(round_trip.duration.has_value());
  RC_ASSERT(*round_trip.duration == duration);
}

}  // namespace
}  // namespace locksim::sim
