// Parsing `--vary PATH=FROM..TO[:STEPS]`: the values a range gives, and a
// message naming the flag for every malformed one.
#include "runner/sweep_axis.h"

#include <gtest/gtest.h>

namespace locksim::runner {
namespace {

std::int64_t seconds(double count) { return static_cast<std::int64_t>(count * 1e9); }

std::string refusal(const std::string& argument) {
  try {
    (void)parse_vary(argument);
  } catch (const SweepInputError& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(ParseVary, DurationsWithStepsIncludeBothEnds) {
  const SweepAxis axis = parse_vary("/faults/0/for=5s..20s:16");
  EXPECT_EQ(axis.pointer, "/faults/0/for");
  EXPECT_EQ(axis.unit, AxisUnit::kDuration);
  ASSERT_EQ(axis.values.size(), 16u);
  EXPECT_EQ(axis.values.front(), seconds(5));
  EXPECT_EQ(axis.values[1], seconds(6));
  EXPECT_EQ(axis.values.back(), seconds(20));
}

TEST(ParseVary, DurationsDefaultToElevenValuesRoundedToTheNanosecond) {
  const SweepAxis axis = parse_vary("/lock/lease=1s..2s");
  ASSERT_EQ(axis.values.size(), 11u);
  EXPECT_EQ(axis.values[1], 1'100'000'000);
  EXPECT_EQ(value_text(axis, axis.values[5]), "1.5s");
  const SweepAxis thirds = parse_vary("/lock/lease=0s..1s:4");
  EXPECT_EQ(thirds.values[1], 333'333'333);
  EXPECT_EQ(thirds.values[2], 666'666'667);  // halves and above round up
}

TEST(ParseVary, DurationsAreWrittenAsTextAndAsDecimalSecondsForCsv) {
  const SweepAxis axis = parse_vary("/faults/0/for=5s..20s:7");
  EXPECT_EQ(value_text(axis, axis.values[1]), "7.5s");
  EXPECT_EQ(value_csv(axis, axis.values[1]), "7.5");
  EXPECT_EQ(value_csv(axis, axis.values[0]), "5");
  EXPECT_EQ(value_csv(axis, 250'000), "0.00025");
  EXPECT_EQ(value_csv(axis, -1'500'000'000), "-1.5");
  EXPECT_DOUBLE_EQ(value_number(axis, axis.values[1]), 7.5);
  EXPECT_EQ(axis_unit_symbol(axis), "s");
}

TEST(ParseVary, FewIntegersAreListedEveryOne) {
  const SweepAxis axis = parse_vary("/workers/count=1..5");
  EXPECT_EQ(axis.unit, AxisUnit::kInteger);
  EXPECT_EQ(axis.values, (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(value_text(axis, 3), "3");
  EXPECT_EQ(value_csv(axis, 3), "3");
  EXPECT_EQ(parse_vary("/workers/count=1..21").values.size(), 21u);
}

TEST(ParseVary, ManyIntegersDefaultToElevenRounded) {
  const SweepAxis axis = parse_vary("/workload/jobs=1..100");
  EXPECT_EQ(axis.values, (std::vector<std::int64_t>{1, 11, 21, 31, 41, 51, 60, 70, 80, 90, 100}));
}

TEST(ParseVary, StepsFinerThanTheIntegersAreDeduplicated) {
  EXPECT_EQ(parse_vary("/workers/count=1..3:9").values, (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(ParseVary, NegativeDurationsWork) {
  const SweepAxis axis = parse_vary("/faults/0/by=-5s..5s:3");
  EXPECT_EQ(axis.values, (std::vector<std::int64_t>{seconds(-5), 0, seconds(5)}));
}

TEST(ParseVary, MalformedTextIsRefusedNamingTheFlag) {
  EXPECT_EQ(refusal("/lock/lease"), "--vary /lock/lease: no '=': expected PATH=FROM..TO[:STEPS], e.g. "
                                    "/faults/0/for=5s..20s:16 or /workers/count=1..5");
  EXPECT_NE(refusal("/lock/lease=5s").find("no '..' between FROM and TO"), std::string::npos);
  EXPECT_NE(refusal("lock/lease=1s..2s").find("must be a JSON pointer starting with '/'"), std::string::npos);
  EXPECT_NE(refusal("/lock/le~ase=1s..2s").find("'~'"), std::string::npos);
}

TEST(ParseVary, BadRangesAreRefused) {
  EXPECT_EQ(refusal("/lock/lease=20s..5s"), "--vary /lock/lease=20s..5s: FROM must be less than TO, got 20s..5s");
  EXPECT_NE(refusal("/lock/lease=5s..5s").find("FROM must be less than TO"), std::string::npos);
  EXPECT_NE(refusal("/lock/lease=5s..20").find("must both be durations (\"5s\", \"250ms\") or both integers"),
            std::string::npos);
  EXPECT_NE(refusal("/lock/lease=5..20x").find("got \"5\" and \"20x\""), std::string::npos);
  EXPECT_NE(refusal("/network/drop=0.1..0.5").find("both integers"), std::string::npos);
}

TEST(ParseVary, BadStepsAreRefused) {
  for (const char* steps : {"1", "0", "-3", "x", "", "1001", "2.5"}) {
    EXPECT_NE(refusal(std::string{"/lock/lease=5s..20s:"} + steps).find("STEPS must be a whole number from 2 to 1000"),
              std::string::npos)
        << steps;
  }
}

TEST(ParseVary, KeysThatAreNotTheSystemAreRefused) {
  for (const char* pointer : {"/expect/fencing-off/stale_write", "/name", "/seeds", "/first_seed"}) {
    EXPECT_NE(refusal(std::string{pointer} + "=1..2").find("a sweep cannot vary"), std::string::npos) << pointer;
  }
  EXPECT_EQ(parse_vary("/seedsx=1..2").pointer, "/seedsx");  // only whole keys are refused; the parser judges the rest
}

}  // namespace
}  // namespace locksim::runner
