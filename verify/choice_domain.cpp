#include "verify/choice_domain.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include <fmt/core.h>

#include "sim/duration_text.h"

namespace locksim::verify {
namespace {

using sim::Distribution;
using sim::Duration;

struct Shape {
  Duration median;
  Duration low;   // the support's start, or the 1st percentile
  Duration high;  // the support's end, or the 99th percentile
  Duration quartile_1;
  Duration quartile_3;
  Duration support_low;
  std::optional<Duration> support_high;  // none: unbounded
};

Duration nanos(double value) {
  const double longest = static_cast<double>(Distribution::kLongestSample.count_ns());
  return Duration::nanoseconds(static_cast<std::int64_t>(std::llround(std::clamp(value, 0.0, longest))));
}

// The standard normal's 75th and 99th percentiles.
constexpr double kNormalQuantile75 = 0.6744897501960817;
constexpr double kNormalQuantile99 = 2.3263478740408408;

Shape shape_of(const Distribution& distribution) {
  const auto& shape = distribution.shape();
  if (const auto* constant = std::get_if<Distribution::Constant>(&shape)) {
    const Duration v = constant->value;
    return {v, v, v, v, v, v, v};
  }
  if (const auto* uniform = std::get_if<Distribution::Uniform>(&shape)) {
    const Duration span = uniform->max - uniform->min;
    return {uniform->min + span / 2, uniform->min, uniform->max, uniform->min + span / 4,
            uniform->max - span / 4, uniform->min, uniform->max};
  }
  if (const auto* exponential = std::get_if<Distribution::Exponential>(&shape)) {
    const double mean = static_cast<double>(exponential->mean.count_ns());
    return {nanos(mean * std::log(2.0)), Duration::zero(), nanos(mean * std::log(100.0)),
            nanos(mean * std::log(4.0 / 3.0)), nanos(mean * std::log(4.0)), Duration::zero(), std::nullopt};
  }
  if (const auto* log_normal = std::get_if<Distribution::LogNormal>(&shape)) {
    const double median = static_cast<double>(log_normal->median.count_ns());
    const double sigma = std::log(static_cast<double>(log_normal->p99.count_ns()) / median) / kNormalQuantile99;
    return {log_normal->median,
            nanos(median * std::exp(-sigma * kNormalQuantile99)),
            log_normal->p99,
            nanos(median * std::exp(-sigma * kNormalQuantile75)),
            nanos(median * std::exp(sigma * kNormalQuantile75)),
            Duration::nanoseconds(1),
            std::nullopt};
  }
  const auto& pareto = std::get<Distribution::Pareto>(shape);
  const double min = static_cast<double>(pareto.min.count_ns());
  // P(X > x) = (min / x)^alpha, so the q-quantile is min · (1 − q)^(−1/alpha).
  auto quantile = [&](double q) { return nanos(min * std::pow(1.0 - q, -1.0 / pareto.alpha)); };
  return {quantile(0.5), pareto.min, quantile(0.99), quantile(0.25), quantile(0.75), pareto.min, std::nullopt};
}

}  // namespace

std::vector<DurationValue> duration_domain(const Distribution& distribution, std::optional<Duration> lease_left,
                                           const DomainOptions& options, const std::optional<Landing>& landing) {
  const Shape shape = shape_of(distribution);
  std::vector<DurationValue> domain;
  domain.reserve(5);
  auto add = [&](Duration value, ValueReason reason) {
    if (value < shape.support_low || (shape.support_high && value > *shape.support_high)) return;
    const bool seen = std::any_of(domain.begin(), domain.end(), [&](const DurationValue& v) { return v.value == value; });
    if (!seen) domain.push_back({value, reason});
  };
  const bool fixed = std::holds_alternative<Distribution::Constant>(distribution.shape());
  add(shape.median, fixed ? ValueReason::kFixed : ValueReason::kMedian);
  add(shape.low, shape.low == shape.support_low ? ValueReason::kMin : ValueReason::kFirstPercentile);
  add(shape.high, shape.support_high ? ValueReason::kMax : ValueReason::kNinetyNinthPercentile);
  if (options.quartiles) {
    add(shape.quartile_1, ValueReason::kFirstQuartile);
    add(shape.quartile_3, ValueReason::kThirdQuartile);
  }
  if (lease_left && *lease_left > kCriticalMargin) {
    add(*lease_left - kCriticalMargin, ValueReason::kLeaseLeftMinus);
    add(*lease_left + kCriticalMargin, ValueReason::kLeaseLeftPlus);
  }
  if (landing) {
    auto add_landing = [&](Duration value, ValueReason reason) {
      if (value >= shape.low && value <= shape.high) add(value, reason);
    };
    add_landing(landing->until - kCriticalMargin, ValueReason::kLandsBefore);
    add_landing(landing->until + kCriticalMargin, ValueReason::kLandsAfter);
  }
  return domain;
}

std::string why_text(ValueReason reason, const std::optional<Landing>& landing) {
  const std::string margin = sim::format_duration(kCriticalMargin);
  const std::string whose = landing ? landing->whose : std::string{"another worker"};
  switch (reason) {
    case ValueReason::kMedian: return "median";
    case ValueReason::kFixed: return "the fixed value";
    case ValueReason::kMin: return "min";
    case ValueReason::kFirstPercentile: return "1st percentile";
    case ValueReason::kMax: return "max";
    case ValueReason::kNinetyNinthPercentile: return "99th percentile";
    case ValueReason::kFirstQuartile: return "25th percentile";
    case ValueReason::kThirdQuartile: return "75th percentile";
    case ValueReason::kLeaseLeftMinus: return fmt::format("the lease left − {}", margin);
    case ValueReason::kLeaseLeftPlus: return fmt::format("the lease left + {}", margin);
    case ValueReason::kLandsBefore: return fmt::format("lands {} before {}'s next storage access", margin, whose);
    case ValueReason::kLandsAfter: return fmt::format("lands {} after {}'s next storage access", margin, whose);
  }
  return "";
}

std::vector<std::uint64_t> below_domain(std::uint64_t bound, bool every) {
  std::vector<std::uint64_t> domain;
  if (every) {
    for (std::uint64_t value = 0; value < bound; ++value) domain.push_back(value);
    return domain;
  }
  for (const std::uint64_t value : {(bound - 1) / 2, std::uint64_t{0}, bound - 1}) {
    if (std::find(domain.begin(), domain.end(), value) == domain.end()) domain.push_back(value);
  }
  return domain;
}

std::vector<bool> chance_domain(double probability) {
  const bool likelier = probability >= 0.5;
  if (probability <= 0.0 || probability >= 1.0) return {likelier};
  return {likelier, !likelier};
}

}  // namespace locksim::verify
