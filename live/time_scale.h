#pragma once
// Live mode's time: every duration of the scenario multiplied by
// --time-scale (docs/live.md, "Time"), to the nanosecond.

#include <chrono>
#include <cmath>

#include "sim/time.h"

namespace locksim::live {

// "No timeout" (Duration::max(), service.request_timeout "none") stays far
// beyond any run: a year, which a timer can add to now without overflowing.
[[nodiscard]] inline std::chrono::nanoseconds scaled(sim::Duration duration, double scale) {
  if (duration == sim::Duration::max()) return std::chrono::hours{24 * 365};
  return std::chrono::nanoseconds{
      static_cast<std::int64_t>(std::llround(static_cast<double>(duration.count_ns()) * scale))};
}

}  // namespace locksim::live
