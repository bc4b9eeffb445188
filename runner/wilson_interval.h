#pragma once
// The 95 % Wilson score interval of a share of runs: unlike the plain
// p ± z·sqrt(p(1-p)/n) it stays inside 0..1 and is not zero-width when no
// run (or every run) had the violation, which is exactly where sweeps sit
// at their ends.

#include <cstdint>

namespace locksim::runner {

// z of a two-sided 95 % interval.
inline constexpr double kWilsonZ95 = 1.959964;

struct ShareWithInterval {
  double rate = 0;  // hits / runs; 0 for no runs
  double low = 0;   // 95 % Wilson lower bound
  double high = 1;  // 95 % Wilson upper bound
};

// `hits` of `runs` (hits <= runs). No runs: rate 0, interval 0..1 (nothing is known).
[[nodiscard]] ShareWithInterval wilson_interval(std::int64_t hits, std::int64_t runs, double z = kWilsonZ95);

}  // namespace locksim::runner
