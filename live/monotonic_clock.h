#pragma once
// The machine's CLOCK_MONOTONIC in nanoseconds: the clock every live
// process shares, on which a live history's times are taken.

#include <time.h>

#include <cstdint>

namespace locksim::live {

inline std::int64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace locksim::live
