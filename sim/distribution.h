#pragma once
// Distributions of durations, drawn through the project's Rng only (never
// std::*_distribution, whose output differs between standard libraries).
//
// Each sample is clamped to [0, kLongestSample]: a heavy Pareto tail must not
// overflow virtual time, and a negative length means nothing here.

#include <algorithm>
#include <string>
#include <variant>

#include "random.h"
#include "time.h"

namespace locksim::sim {

class Distribution {
 public:
  struct Constant {
    Duration value;
  };
  struct Uniform {  // every nanosecond in [min, max] equally likely
    Duration min;
    Duration max;
  };
  struct Exponential {  // memoryless, by its mean
    Duration mean;
  };
  struct LogNormal {  // by its median and 99th percentile, as latency is usually quoted
    Duration median;
    Duration p99;
  };
  struct Pareto {  // heavy tail: P(X > x) = (min / x)^alpha for x >= min
    Duration min;
    double alpha;
  };
  using Shape = std::variant<Constant, Uniform, Exponential, LogNormal, Pareto>;

  // About three years: far beyond any scenario, far below int64 overflow.
  static constexpr Duration kLongestSample = Duration::seconds(100'000'000);

  Distribution() : shape_{Constant{}} {}
  // Requires a valid shape (see is_valid); the scenario layer reports bad ones to the user.
  explicit Distribution(Shape shape);

  static Distribution constant(Duration value) { return Distribution{Constant{value}}; }
  static Distribution uniform(Duration min, Duration max) { return Distribution{Uniform{min, max}}; }
  static Distribution exponential(Duration mean) { return Distribution{Exponential{mean}}; }
  static Distribution log_normal(Duration median, Duration p99) { return Distribution{LogNormal{median, p99}}; }
  static Distribution pareto(Duration min, double alpha) { return Distribution{Pareto{min, alpha}}; }

  // Returns an empty string iff `shape` has non-negative lengths, min <= max,
  // median > 0, p99 >= median and a finite alpha > 0; else what is wrong.
  [[nodiscard]] static std::string validate(const Shape& shape);

  [[nodiscard]] Duration sample(Rng& rng) const {
    // Inline for a constant (the default network delay, drawn for every
    // message): no draw, no visit.
    if (const Constant* constant = std::get_if<Constant>(&shape_)) {
      return std::clamp(constant->value, Duration::zero(), kLongestSample);
    }
    return sample_shape(rng);
  }
  [[nodiscard]] const Shape& shape() const { return shape_; }
  // E.g. "uniform(50ms, 500ms)", for traces and resolved scenarios.
  [[nodiscard]] std::string describe() const;

  friend bool operator==(const Distribution&, const Distribution&) = default;

 private:
  [[nodiscard]] Duration sample_shape(Rng& rng) const;

  Shape shape_;
  // LogNormal only: its sigma, computed once (it costs a logarithm, and a
  // network delay is drawn for every message) by the same expression each
  // sample used to evaluate, so every sample is bit-for-bit what it was.
  double log_normal_sigma_ = 0.0;
};

inline bool operator==(const Distribution::Constant& a, const Distribution::Constant& b) { return a.value == b.value; }
inline bool operator==(const Distribution::Uniform& a, const Distribution::Uniform& b) { return a.min == b.min && a.max == b.max; }
inline bool operator==(const Distribution::Exponential& a, const Distribution::Exponential& b) { return a.mean == b.mean; }
inline bool operator==(const Distribution::LogNormal& a, const Distribution::LogNormal& b) { return a.median == b.median && a.p99 == b.p99; }
inline bool operator==(const Distribution::Pareto& a, const Distribution::Pareto& b) { return a.min == b.min && a.alpha == b.alpha; }

}  // namespace locksim::sim
