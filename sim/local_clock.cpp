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

}  // namespace

LocalClock::LocalClock(LocalTime reading_at_start, std::int64_t drift_ppb)
    : anchor_local_{reading_at_start}, drift_ppb_{drift_ppb} {
  LOCKSIM_ASSERT(drift_ppb > -kMaxDriftPpb && drift_ppb < kMaxDriftPpb, "clock drift out of range");
}

LocalTime LocalClock::read(Time now) const {
  const SignedInt128 elapsed = (now - anchor_true_).count_ns();
  const SignedInt128 local_elapsed = elapsed + floor_divide(elapsed * drift_ppb_, kBillion);
  return anchor_local_ + Duration::nanoseconds(static_cast<std::int64_t>(local_elapsed));
}

Time LocalClock::when_reads(LocalTime reading, Time now) const {
  if (read(now) >= reading) {
    return now;
  }
  if (reading == LocalTime::max()) {
    return Time::max();
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
