#include "reports/readable_duration.h"

#include <array>

#include <fmt/format.h>

namespace locksim::reports {
namespace {

struct Unit {
  std::uint64_t nanoseconds;
  const char* name;
};

constexpr std::array<Unit, 3> kUnitsAboveNanoseconds = {{{1'000, "us"}, {1'000'000, "ms"}, {1'000'000'000, "s"}}};
constexpr std::uint64_t kHundredthsPerThousandUnits = 100'000;
constexpr std::uint64_t kHundredthsOfSecondPerMinute = 6'000;

// Magnitude as unsigned, so that INT64_MIN does not overflow.
std::uint64_t magnitude_of(std::int64_t value) {
  return value < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
}

// "24.84", "24.8", "24" from hundredths.
std::string decimal_text(std::uint64_t hundredths) {
  const std::uint64_t whole = hundredths / 100;
  const std::uint64_t fraction = hundredths % 100;
  if (fraction == 0) return fmt::format("{}", whole);
  if (fraction % 10 == 0) return fmt::format("{}.{}", whole, fraction / 10);
  return fmt::format("{}.{:02}", whole, fraction);
}

std::string minutes_text(std::uint64_t hundredths_of_second) {
  const std::uint64_t minutes = hundredths_of_second / kHundredthsOfSecondPerMinute;
  const std::uint64_t rest = hundredths_of_second % kHundredthsOfSecondPerMinute;
  if (rest == 0) return fmt::format("{}m", minutes);
  return fmt::format("{}m{}s", minutes, decimal_text(rest));
}

std::string magnitude_text(std::uint64_t magnitude_ns) {
  if (magnitude_ns < kUnitsAboveNanoseconds.front().nanoseconds) return fmt::format("{}ns", magnitude_ns);
  std::size_t unit = 0;
  while (unit + 1 < kUnitsAboveNanoseconds.size() && magnitude_ns >= kUnitsAboveNanoseconds[unit + 1].nanoseconds) {
    ++unit;
  }
  for (;; ++unit) {
    const std::uint64_t hundredth = kUnitsAboveNanoseconds[unit].nanoseconds / 100;
    // Cannot overflow: magnitude_ns <= 2^63 and hundredth / 2 < 2^63.
    const std::uint64_t hundredths = (magnitude_ns + hundredth / 2) / hundredth;
    const bool is_seconds = unit + 1 == kUnitsAboveNanoseconds.size();
    if (is_seconds) {
      return hundredths >= kHundredthsOfSecondPerMinute ? minutes_text(hundredths)
                                                        : decimal_text(hundredths) + kUnitsAboveNanoseconds[unit].name;
    }
    // Rounded up to 1000 of this unit: the next unit says it better.
    if (hundredths < kHundredthsPerThousandUnits) return decimal_text(hundredths) + kUnitsAboveNanoseconds[unit].name;
  }
}

}  // namespace

std::string readable_duration(std::int64_t duration_ns) {
  const std::string text = magnitude_text(magnitude_of(duration_ns));
  return duration_ns < 0 ? "-" + text : text;
}

std::string seconds_text(std::int64_t time_ns, SecondsPrecision precision) {
  struct Step {
    std::int64_t nanoseconds;  // one step of the display
    int decimals;
  };
  const Step step = precision == SecondsPrecision::kMilliseconds   ? Step{1'000'000, 3}
                    : precision == SecondsPrecision::kMicroseconds ? Step{1'000, 6}
                                                                   : Step{1, 9};
  // Floor division, so that a negative time rounds down too.
  std::int64_t steps = time_ns / step.nanoseconds;
  if (time_ns % step.nanoseconds < 0) steps -= 1;
  const std::uint64_t magnitude = magnitude_of(steps);
  const auto steps_per_second = static_cast<std::uint64_t>(1'000'000'000 / step.nanoseconds);
  return fmt::format("{}{}.{:0{}}s", steps < 0 ? "-" : "", magnitude / steps_per_second, magnitude % steps_per_second,
                     step.decimals);
}

}  // namespace locksim::reports
