#pragma once
// Expectations and run outcomes in words, the same in the terminal table,
// the JUnit failures and the summary JSON:
//   "expected stale_write ==0, got 3"
//   "expected stale_write <=2% of runs, got 3 of 200 runs (1.5%)"
//   "stopped short: seed 4: time limit 5m reached with 7 jobs left; still waiting: worker-2: 3 jobs done, node down"

#include <string>

#include "runner/summary.h"

namespace locksim::reports {

// "==0", "<=2% of runs"
[[nodiscard]] std::string bound_words(const runner::ExpectationResult& result);
// "3", "3 of 200 runs (1.5%)"
[[nodiscard]] std::string actual_words(const runner::ExpectationResult& result);
// "expected MEASURE BOUND, got ACTUAL"
[[nodiscard]] std::string expectation_words(const runner::ExpectationResult& result);

// For a failed expectation, where to see it: "seed 159 shows it: locksim
// replay … --around stale_write", or "no seed showed it in 200 runs" for an
// expectation that something happens; "" otherwise.
[[nodiscard]] std::string failure_replay_words(const runner::ExpectationResult& result);
// "seed 4: time limit 5m reached with 7 jobs left; still waiting: a, b"
[[nodiscard]] std::string stopped_short_words(const runner::StoppedShortExample& example);

}  // namespace locksim::reports
