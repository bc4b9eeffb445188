#pragma once
// Strong types for simulated time, all integer nanoseconds.
//
// Duration is a signed length of time. Time is a point in *true* time (the
// simulator's and the checker's); LocalTime is what one node reads from its
// own clock (offset, drift, jumps). The two point types do not mix: model code
// that compares a lease deadline read off the service's clock with a worker's
// clock does not compile, which is the whole hazard this project is about.
//
// Arithmetic on points saturates instead of overflowing, so "no deadline"
// (Duration::max()) can be added to any point safely.

#include <compare>
#include <cstdint>
#include <limits>

namespace locksim::sim {

class Duration {
 public:
  constexpr Duration() = default;

  static constexpr Duration nanoseconds(std::int64_t count) { return Duration{count}; }
  static constexpr Duration microseconds(std::int64_t count) { return Duration{count * 1'000}; }
  static constexpr Duration milliseconds(std::int64_t count) { return Duration{count * 1'000'000}; }
  static constexpr Duration seconds(std::int64_t count) { return Duration{count * 1'000'000'000}; }
  static constexpr Duration minutes(std::int64_t count) { return Duration{count * 60'000'000'000}; }
  static constexpr Duration zero() { return Duration{0}; }
  static constexpr Duration max() { return Duration{std::numeric_limits<std::int64_t>::max()}; }

  constexpr std::int64_t count_ns() const { return nanoseconds_; }
  constexpr double seconds_double() const { return static_cast<double>(nanoseconds_) / 1e9; }

  constexpr Duration operator-() const { return Duration{-nanoseconds_}; }
  // Saturates, as a point's does: "no timeout" (max()) plus a wait is still no timeout.
  constexpr Duration operator+(Duration other) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(nanoseconds_, other.nanoseconds_, &sum)) {
      return other.nanoseconds_ > 0 ? max() : Duration{std::numeric_limits<std::int64_t>::min()};
    }
    return Duration{sum};
  }
  constexpr Duration operator-(Duration other) const { return Duration{nanoseconds_ - other.nanoseconds_}; }
  constexpr Duration operator*(std::int64_t factor) const { return Duration{nanoseconds_ * factor}; }
  constexpr Duration operator/(std::int64_t divisor) const { return Duration{nanoseconds_ / divisor}; }
  constexpr Duration& operator+=(Duration other) { return *this = *this + other; }
  constexpr Duration& operator-=(Duration other) { return *this = *this - other; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(std::int64_t count) : nanoseconds_{count} {}
  std::int64_t nanoseconds_ = 0;
};

// A point in time on one kind of clock, as nanoseconds since the run began.
template <class ClockTag>
class TimePoint {
 public:
  constexpr TimePoint() = default;
  static constexpr TimePoint from_ns(std::int64_t since_start) { return TimePoint{since_start}; }
  static constexpr TimePoint max() { return TimePoint{std::numeric_limits<std::int64_t>::max()}; }

  constexpr std::int64_t ns() const { return nanoseconds_; }
  constexpr double seconds_double() const { return static_cast<double>(nanoseconds_) / 1e9; }

  constexpr TimePoint operator+(Duration length) const { return TimePoint{saturating_add(nanoseconds_, length.count_ns())}; }
  constexpr TimePoint operator-(Duration length) const { return *this + (-length); }
  constexpr Duration operator-(TimePoint earlier) const { return Duration::nanoseconds(nanoseconds_ - earlier.nanoseconds_); }
  constexpr TimePoint& operator+=(Duration length) { return *this = *this + length; }
  constexpr auto operator<=>(const TimePoint&) const = default;

 private:
  constexpr explicit TimePoint(std::int64_t since_start) : nanoseconds_{since_start} {}

  static constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) {
      return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    }
    return sum;
  }

  std::int64_t nanoseconds_ = 0;
};

struct TrueClockTag {};
struct LocalClockTag {};

// True time: what the simulator schedules by and the history records as `t`.
using Time = TimePoint<TrueClockTag>;
// A node's own clock reading: what model code decides by, recorded as `local_t`.
using LocalTime = TimePoint<LocalClockTag>;

namespace literals {
constexpr Duration operator""_ns(unsigned long long count) { return Duration::nanoseconds(static_cast<std::int64_t>(count)); }
constexpr Duration operator""_us(unsigned long long count) { return Duration::microseconds(static_cast<std::int64_t>(count)); }
constexpr Duration operator""_ms(unsigned long long count) { return Duration::milliseconds(static_cast<std::int64_t>(count)); }
constexpr Duration operator""_s(unsigned long long count) { return Duration::seconds(static_cast<std::int64_t>(count)); }
constexpr Duration operator""_min(unsigned long long count) { return Duration::minutes(static_cast<std::int64_t>(count)); }
}  // namespace literals

}  // namespace locksim::sim
