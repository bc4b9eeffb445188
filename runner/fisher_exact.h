#pragma once
// Fisher's exact test on two shares of runs (`live --compare-sim`: the runs
// with a violation live against simulated): the chance, were both drawn
// from one share, of a split of the hits at most as likely as the one seen.
// Exact for the small counts live runs give, where a chi-squared
// approximation is not.

#include <cstdint>

namespace locksim::runner {

// Two-sided p of `a_hits` of `a_runs` against `b_hits` of `b_runs`
// (hits <= runs); 1 when either side has no runs.
[[nodiscard]] double fisher_exact_p(std::int64_t a_hits, std::int64_t a_runs, std::int64_t b_hits, std::int64_t b_runs);

}  // namespace locksim::runner
