#pragma once
// A node's own clock: what it reads as "now" at a given true time.
//
// The clock runs at rate (1 + drift_ppb / 1e9) from an anchor and can be set
// (jumped) forward or back, as NTP or an operator would. All arithmetic is
// exact integer math on nanoseconds, so a reading depends only on the
// anchor, the drift and the true time, never on rounding history.

#include <cstdint>

#include "time.h"

namespace locksim::sim {

class LocalClock {
 public:
  // |drift| beyond half the clock's rate is not a drifting clock but a broken model.
  static constexpr std::int64_t kMaxDriftPpb = 500'000'000;

  // A clock that reads `reading_at_start` at true time zero and drifts by `drift_ppb`.
  explicit LocalClock(LocalTime reading_at_start = LocalTime{}, std::int64_t drift_ppb = 0);

  // The reading at true time `now`; non-decreasing in `now` between changes.
  [[nodiscard]] LocalTime read(Time now) const;

  // The earliest true time t >= now with read(t) >= reading. A timer set for
  // a local reading fires then.
  [[nodiscard]] Time when_reads(LocalTime reading, Time now) const;

  // The clock is set forward (positive) or back (negative) by `by` at `now`.
  void jump(Time now, Duration by);
  // From `now` on the clock runs at the new drift; the reading does not jump.
  void set_drift(Time now, std::int64_t drift_ppb);

  [[nodiscard]] std::int64_t drift_ppb() const { return drift_ppb_; }

 private:
  void reanchor(Time now);

  Time anchor_true_;
  LocalTime anchor_local_;
  std::int64_t drift_ppb_ = 0;
};

}  // namespace locksim::sim
