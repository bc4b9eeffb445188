#include "duration_text.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/core.h>

namespace locksim::sim {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t nanoseconds;
};

// Longest suffixes first so "ms" is not read as "m" followed by junk.
constexpr std::array kUnits{
    Unit{"ns", 1},
    Unit{"us", 1'000},
    Unit{"ms", 1'000'000},
    Unit{"s", 1'000'000'000},
    Unit{"m", 60'000'000'000},
    Unit{"h", 3'600'000'000'000},
};

DurationParse failure(std::string_view text, std::string_view why) {
  return DurationParse{std::nullopt, fmt::format("expected a duration like \"45s\", \"250ms\" or \"1.5s\" "
                                                 "(units ns, us, ms, s, m, h), got \"{}\" ({})",
                                                 text, why)};
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<Unit> unit_for(std::string_view suffix) {
  for (const Unit& unit : kUnits) {
    if (unit.suffix == suffix) {
      return unit;
    }
  }
  return std::nullopt;
}

}  // namespace

DurationParse parse_duration(std::string_view text) {
  std::string_view rest = text;
  const bool negative = !rest.empty() && rest.front() == '-';
  if (negative) {
    rest.remove_prefix(1);
  }
  std::size_t position = 0;
  while (position < rest.size() && is_digit(rest[position])) {
    ++position;
  }
  const std::string_view whole_digits = rest.substr(0, position);
  std::string_view fraction_digits;
  if (position < rest.size() && rest[position] == '.') {
    const std::size_t fraction_start = ++position;
    while (position < rest.size() && is_digit(rest[position])) {
      ++position;
    }
    fraction_digits = rest.substr(fraction_start, position - fraction_start);
    if (fraction_digits.empty()) {
      return failure(text, "no digits after the decimal point");
    }
  }
  if (whole_digits.empty()) {
    return failure(text, "no number");
  }
  const std::string_view suffix = rest.substr(position);
  if (suffix.empty()) {
    return failure(text, "no unit");
  }
  const std::optional<Unit> unit = unit_for(suffix);
  if (!unit) {
    return failure(text, fmt::format("unknown unit \"{}\"", suffix));
  }

  std::int64_t total = 0;
  for (char digit : whole_digits) {
    if (__builtin_mul_overflow(total, 10, &total) || __builtin_add_overflow(total, digit - '0', &total)) {
      return failure(text, "too large");
    }
  }
  if (__builtin_mul_overflow(total, unit->nanoseconds, &total)) {
    return failure(text, "too large");
  }
  // The fraction in the unit's nanoseconds: digits / 10^n * scale, exactly.
  std::int64_t scale = unit->nanoseconds;
  for (char digit : fraction_digits) {
    const std::int64_t value = digit - '0';
    if (scale % 10 != 0) {
      if (value != 0) {
        return failure(text, "finer than a nanosecond");
      }
      continue;
    }
    scale /= 10;
    if (__builtin_add_overflow(total, value * scale, &total)) {
      return failure(text, "too large");
    }
  }
  return DurationParse{Duration::nanoseconds(negative ? -total : total), {}};
}

DurationParse duration_from_milliseconds(double milliseconds) {
  if (!std::isfinite(milliseconds)) {
    return DurationParse{std::nullopt, "expected a finite number of milliseconds"};
  }
  const double nanoseconds = std::round(milliseconds * 1e6);
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  constexpr double kLimit = 9223372036854775808.0;
  if (nanoseconds >= kLimit || nanoseconds <= -kLimit) {
    return DurationParse{std::nullopt,
                         fmt::format("expected at most about 292 years of milliseconds, got {}", milliseconds)};
  }
  return DurationParse{Duration::nanoseconds(static_cast<std::int64_t>(nanoseconds)), {}};
}

std::string format_duration(Duration duration) {
  const std::int64_t count = duration.count_ns();
  if (count == 0) {
    return "0s";
  }
  if (count == std::numeric_limits<std::int64_t>::min()) {
    return fmt::format("{}ns", count);  // cannot be negated
  }
  const bool negative = count < 0;
  const std::uint64_t magnitude = static_cast<std::uint64_t>(negative ? -count : count);
  const std::string_view sign = negative ? "-" : "";

  constexpr std::uint64_t kMinute = 60'000'000'000;
  if (magnitude % kMinute == 0) {
    return fmt::format("{}{}m", sign, magnitude / kMinute);
  }
  // Otherwise the largest of s, ms, us, ns that is at most the value, with
  // the remainder written as a decimal fraction without trailing zeros.
  constexpr std::array<Unit, 4> kDecimalUnits{
      Unit{"s", 1'000'000'000}, Unit{"ms", 1'000'000}, Unit{"us", 1'000}, Unit{"ns", 1}};
  for (const Unit& unit : kDecimalUnits) {
    const auto scale = static_cast<std::uint64_t>(unit.nanoseconds);
    if (magnitude < scale && scale != 1) {
      continue;
    }
    const std::uint64_t whole = magnitude / scale;
    std::uint64_t fraction = magnitude % scale;
    if (fraction == 0) {
      return fmt::format("{}{}{}", sign, whole, unit.suffix);
    }
    int digits = 0;
    for (std::uint64_t rest = scale; rest > 1; rest /= 10) {
      ++digits;
    }
    while (fraction % 10 == 0) {
      fraction /= 10;
      --digits;
    }
    return fmt::format("{}{}.{:0{}}{}", sign, whole, fraction, digits, unit.suffix);
  }
  return fmt::format("{}ns", count);
}

}  // namespace locksim::sim
