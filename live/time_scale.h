#pragma once
// Live mode's time: every duration of the scenario multiplied by
// --time-scale (docs/live.md, "Time"), to the nanosecond.

#include <chrono>
#include <cmath>

#include "sim/time.h"

namespace locksim::live {

[[nodiscard]] inline std::chrono::nanoseconds scaled(sim::Duration duration, double scale) {
  return std::chrono::nanoseconds{
      static_cast<std::int64_t>(std::llround(static_cast<double>(duration.count_ns()) * scale))};
}

}  // namespace locksim::live
