#pragma once
// Durations as people write them in scenario files: "250us", "45s", "1.5s",
// "2m", or a plain number of milliseconds. Parsing is exact integer
// arithmetic (no floating point), so "1.5s" is 1'500'000'000 ns on every
// machine, and format_duration() writes text that parses back to the same
// value.

#include <optional>
#include <string>
#include <string_view>

#include "time.h"

namespace locksim::sim {

struct DurationParse {
  std::optional<Duration> duration;  // set iff the text was a valid duration
  std::string error;                 // otherwise: what was expected, for the user
};

// Parses `[-]DIGITS[.DIGITS]UNIT` with UNIT one of ns, us, ms, s, m (minutes),
// h. Rejects empty text, missing units, spaces, values finer than a
// nanosecond and values beyond about ±292 years (int64 nanoseconds).
[[nodiscard]] DurationParse parse_duration(std::string_view text);

// A JSON number of milliseconds, rounded to the nearest nanosecond. Rejects
// NaN, infinities and values beyond the int64 nanosecond range.
[[nodiscard]] DurationParse duration_from_milliseconds(double milliseconds);

// The shortest exact text for `duration` in the largest fitting unit, e.g.
// "45s", "1.5s", "2m", "250us", "-5s". parse_duration(format_duration(d)) == d.
[[nodiscard]] std::string format_duration(Duration duration);

}  // namespace locksim::sim
