#include "local_clock.h"

#include "assert.h"
#include "wide_integer.h"

namespace locksim::sim {
namespace {

constexpr std::int64_t kBillion = 1'000'000'000;

// floor(a / b) for b > 0 (C++ division truncates toward zero).
SignedInt128 floor_divide(SignedInt128 a, SignedInt128 b) {
  SignedInt128 quotient = a / b;
  if (a % b != 0 && a < 0) {
    --quotient;
  }
  return quotient;
}

// floor(elapsed · drift / 1e9): the reading's drift correction, in 64 bits
// when the product fits (at 100 ppm, for 25 hours since the clock was last
// set or re-rated), else in 128. A 128-bit division is a library call, and
// a clock is read for every timer and every reading a model takes.
std::int64_t drift_correction(std::int64_t elapsed, std::int64_t drift_ppb) {
  std::int64_t product = 0;
  if (!__builtin_mul_overflow(elapsed, drift_ppb, &product)) {
    const std::int64_t quotient = product / kBillion;
    return product % kBillion != 0 && product < 0 ? quotient - 1 : quotient;
  }
  return static_cast<std::int64_t>(floor_divide(SignedInt128{elapsed} * drift_ppb, kBillion));
}

}  // namespace

LocalClock::LocalClock(LocalTime reading_at_start, std::int64_t drift_ppb)
    : anchor_local_{reading_at_start}, drift_ppb_{drift_ppb} {
  LOCKSIM_ASSERT(drift_ppb > -kMaxDriftPpb && drift_ppb < kMaxDriftPpb, "clock drift out of range");
}

LocalTime LocalClock::read(Time now) const {
  const std::int64_t elapsed = (now - anchor_true_).count_ns();
  if (drift_ppb_ == 0) {
    return anchor_local_ + Duration::nanoseconds(elapsed);
  }
  const SignedInt128 local_elapsed = SignedInt128{elapsed} + drift_correction(elapsed, drift_ppb_);
  return anchor_local_ + Duration::nanoseconds(static_cast<std::int64_t>(local_elapsed));
}

Time LocalClock::when_reads(LocalTime reading, Time now) const {
  if (read(now) >= reading) {
    return now;
  }
  if (reading == LocalTime::max()) {
    return Time::max();
  }
  if (drift_ppb_ == 0) {
    // read() is anchor_local + elapsed exactly: the reading is reached after
    // as much true time as it lies ahead (and read(now) < reading, so that is after now).
    return anchor_true_ + (reading - anchor_local_);
  }
  // Invert read(): elapsed_true = local_elapsed · 1e9 / (1e9 + drift), then
  // step to the exact first nanosecond, since read() floors.
  const SignedInt128 local_elapsed = (reading - anchor_local_).count_ns();
  SignedInt128 true_elapsed = floor_divide(local_elapsed * kBillion, kBillion + drift_ppb_);
  Time candidate = anchor_true_ + Duration::nanoseconds(static_cast<std::int64_t>(true_elapsed));
  while (candidate > now && read(candidate - Duration::nanoseconds(1)) >= reading) {
    candidate = candidate - Duration::nanoseconds(1);
  }
  while (read(candidate) < reading) {
    candidate += Duration::nanoseconds(1);
  }
  return candidate < now ? now : candidate;
}

void LocalClock::jump(Time now, Duration by) {
  reanchor(now);
  anchor_local_ += by;
}

void LocalClock::set_drift(Time now, std::int64_t drift_ppb) {
  LOCKSIM_ASSERT(drift_ppb > -kMaxDriftPpb && drift_ppb < kMaxDriftPpb, "clock drift out of range");
  reanchor(now);
  drift_ppb_ = drift_ppb;
}

void LocalClock::reanchor(Time now) {
  anchor_local_ = read(now);
  anchor_true_ = now;
}

}  // namespace locksim::sim
