#include "distribution.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "assert.h"
#include "duration_text.h"

namespace locksim::sim {
namespace {

// The standard normal's 99th percentile: p99 = median · e^(sigma · this).
constexpr double kNormalQuantile99 = 2.3263478740408408;
constexpr double kTwoPi = 6.283185307179586;

template <class... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};
// C++20 deduces an aggregate's template arguments, but clang 14 does not
// implement that (P1816): the guide keeps both compilers building it.
template <class... Lambdas>
Overloaded(Lambdas...) -> Overloaded<Lambdas...>;

Duration clamp_to_sample_range(double nanoseconds) {
  if (!(nanoseconds > 0.0)) {  // also catches NaN
    return Duration::zero();
  }
  const double longest = static_cast<double>(Distribution::kLongestSample.count_ns());
  if (nanoseconds >= longest) {
    return Distribution::kLongestSample;
  }
  return Duration::nanoseconds(static_cast<std::int64_t>(std::llround(nanoseconds)));
}

Duration clamp_to_sample_range(Duration length) {
  return std::clamp(length, Duration::zero(), Distribution::kLongestSample);
}

// A uniform draw in (0, 1]: safe to take the logarithm of.
double open_unit(Rng& rng) { return 1.0 - rng.unit(); }

// One standard normal draw (Box–Muller, cosine branch).
double standard_normal(Rng& rng) {
  const double radius = std::sqrt(-2.0 * std::log(open_unit(rng)));
  return radius * std::cos(kTwoPi * rng.unit());
}

}  // namespace

Distribution::Distribution(Shape shape) : shape_{shape} {
  LOCKSIM_ASSERT(validate(shape_).empty(), "invalid distribution shape");
  if (const LogNormal* log_normal = std::get_if<LogNormal>(&shape_)) {
    const double median = static_cast<double>(log_normal->median.count_ns());
    log_normal_sigma_ = std::log(static_cast<double>(log_normal->p99.count_ns()) / median) / kNormalQuantile99;
  }
}

std::string Distribution::validate(const Shape& shape) {
  return std::visit(
      Overloaded{
          [](const Constant& c) -> std::string { return c.value < Duration::zero() ? "a negative length" : ""; },
          [](const Uniform& u) -> std::string {
            if (u.min < Duration::zero()) return "a negative min";
            if (u.max < u.min) return "max below min";
            return "";
          },
          [](const Exponential& e) -> std::string { return e.mean <= Duration::zero() ? "a mean that is not positive" : ""; },
          [](const LogNormal& l) -> std::string {
            if (l.median <= Duration::zero()) return "a median that is not positive";
            if (l.p99 < l.median) return "p99 below the median";
            return "";
          },
          [](const Pareto& p) -> std::string {
            if (p.min <= Duration::zero()) return "a min that is not positive";
            if (!(p.alpha > 0.0) || !std::isfinite(p.alpha)) return "an alpha that is not a positive number";
            return "";
          },
      },
      shape);
}

Duration Distribution::sample_shape(Rng& rng) const {
  return std::visit(
      Overloaded{
          [](const Constant& c) { return clamp_to_sample_range(c.value); },
          [&rng](const Uniform& u) {
            return clamp_to_sample_range(Duration::nanoseconds(rng.between(u.min.count_ns(), u.max.count_ns())));
          },
          [&rng](const Exponential& e) {
            return clamp_to_sample_range(-static_cast<double>(e.mean.count_ns()) * std::log(open_unit(rng)));
          },
          [this, &rng](const LogNormal& l) {
            const double median = static_cast<double>(l.median.count_ns());
            return clamp_to_sample_range(median * std::exp(log_normal_sigma_ * standard_normal(rng)));
          },
          [&rng](const Pareto& p) {
            return clamp_to_sample_range(static_cast<double>(p.min.count_ns()) *
                                         std::pow(open_unit(rng), -1.0 / p.alpha));
          },
      },
      shape_);
}

std::string Distribution::describe() const {
  return std::visit(
      Overloaded{
          [](const Constant& c) { return format_duration(c.value); },
          [](const Uniform& u) { return fmt::format("uniform({}, {})", format_duration(u.min), format_duration(u.max)); },
          [](const Exponential& e) { return fmt::format("exponential(mean {})", format_duration(e.mean)); },
          [](const LogNormal& l) {
            return fmt::format("lognormal(median {}, p99 {})", format_duration(l.median), format_duration(l.p99));
          },
          [](const Pareto& p) { return fmt::format("pareto(min {}, alpha {})", format_duration(p.min), p.alpha); },
      },
      shape_);
}

}  // namespace locksim::sim
