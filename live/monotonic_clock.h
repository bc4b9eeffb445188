#pragma once
// The machine's CLOCK_MONOTONIC in nanoseconds: the clock every live
// process shares, on which a live history's times are taken; and the clock
// a live client times its lease on.

#include <time.h>

#include <cstdint>

#include "sim/clock_kind.h"

namespace locksim::live {

inline std::int64_t clock_reading_ns(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

inline std::int64_t monotonic_ns() { return clock_reading_ns(CLOCK_MONOTONIC); }

// The clock a client times its lease on (workers.clock): CLOCK_MONOTONIC,
// or the wall clock CLOCK_REALTIME, which an NTP step or `date -s` moves.
inline std::int64_t lease_clock_ns(sim::ClockKind clock) {
  return clock_reading_ns(clock == sim::ClockKind::kWall ? CLOCK_REALTIME : CLOCK_MONOTONIC);
}

}  // namespace locksim::live
