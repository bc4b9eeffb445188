#pragma once
// Durations and clock readings for people reading a trace. Lossy by design:
// `replay --raw` prints the exact nanoseconds, and sim::format_duration is
// the exact text that parses back.

#include <cstdint>
#include <string>

namespace locksim::reports {

// "999ns", "1us", "12us", "350ms", "24.84s", "1m", "1m30.5s", "-350ms": the
// largest unit (ns, us, ms, s) in which the magnitude is at least 1, rounded
// to the nearest hundredth of that unit (halves away from zero), trailing
// zeros dropped; a value that rounds up to 1000 of a unit is written in the
// next one ("1ms", never "1000us"). From 60 s on: minutes and seconds. Exact
// for every int64, INT64_MIN included.
[[nodiscard]] std::string readable_duration(std::int64_t duration_ns);

// How many decimals of a second a time column shows.
enum class SecondsPrecision : std::uint8_t {
  kMilliseconds,  // "47.210s"
  kMicroseconds,  // "47.210004s"
  kNanoseconds,   // "47.210004312s": exact
};

// `time_ns` in seconds with the precision's decimals, rounded down (towards
// minus infinity, like a clock's display), so that the text never reads later
// than the time and a later time never reads earlier: "47.210s", "-0.001s".
[[nodiscard]] std::string seconds_text(std::int64_t time_ns, SecondsPrecision precision);

}  // namespace locksim::reports
