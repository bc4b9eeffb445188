#pragma once
// Which of a node's two clocks a reading or a timer is on.
//
// Every node has both, as a real machine does:
// - the wall clock (CLOCK_REALTIME, gettimeofday, Java's currentTimeMillis):
//   it has an offset and a drift, and NTP or an operator can set it — a jump
//   forward or back;
// - the monotonic clock (CLOCK_MONOTONIC, Go's monotonic reading behind
//   time.Since, Java's nanoTime): it drifts with the same oscillator but is
//   never set, so it never jumps.
// A model says at every reading and every timer which one it means, because
// which one the real system uses decides the hazard (H3, H4, H16).

#include <cstdint>

namespace locksim::sim {

enum class ClockKind : std::uint8_t {
  kWall,       // offset, drift, jumps
  kMonotonic,  // drift only; never jumps
};

}  // namespace locksim::sim
