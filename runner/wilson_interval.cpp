#include "runner/wilson_interval.h"

#include <algorithm>
#include <cmath>

namespace locksim::runner {

ShareWithInterval wilson_interval(std::int64_t hits, std::int64_t runs, double z) {
  if (runs <= 0) return {};
  const double n = static_cast<double>(runs);
  const double p = static_cast<double>(hits) / n;
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / n;
  const double centre = (p + z2 / (2.0 * n)) / denominator;
  const double half_width = z * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator;
  // Rounding can push a bound a hair past 0 or 1 at the ends.
  return {p, std::max(0.0, centre - half_width), std::min(1.0, centre + half_width)};
}

}  // namespace locksim::runner
