#include "runner/fisher_exact.h"

#include <algorithm>
#include <cmath>

namespace locksim::runner {
namespace {

double log_choose(std::int64_t n, std::int64_t k) {
  const auto lf = [](std::int64_t x) { return std::lgamma(static_cast<double>(x) + 1.0); };
  return lf(n) - lf(k) - lf(n - k);
}

}  // namespace

double fisher_exact_p(std::int64_t a_hits, std::int64_t a_runs, std::int64_t b_hits, std::int64_t b_runs) {
  if (a_runs <= 0 || b_runs <= 0) return 1.0;
  const std::int64_t hits = a_hits + b_hits;
  const std::int64_t runs = a_runs + b_runs;
  // The chance of `x` of the hits falling on side a, the margins fixed (hypergeometric).
  const auto chance = [&](std::int64_t x) {
    return std::exp(log_choose(a_runs, x) + log_choose(b_runs, hits - x) - log_choose(runs, hits));
  };
  const double seen = chance(a_hits);
  // Splits as likely as the one seen count too; the relative slack keeps
  // ties that rounding put a hair apart (R's fisher.test uses 1 + 1e-7).
  const double at_most = seen * (1.0 + 1e-7);
  double p = 0;
  for (std::int64_t x = std::max<std::int64_t>(0, hits - b_runs); x <= std::min(hits, a_runs); ++x) {
    if (const double c = chance(x); c <= at_most) p += c;
  }
  return std::min(1.0, p);
}

}  // namespace locksim::runner
