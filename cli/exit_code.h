#pragma once
// The process exit codes of every `locksim` command (docs/cli.md), and the
// one precedence between them: when several apply, the more severe wins —
// 3 (internal error, determinism self-check, oracle mismatch) over 2 (bad
// usage or input) over 1 (an expectation failed) over 0.

#include <algorithm>
#include <vector>

#include "runner/summary.h"

namespace locksim::cli {

enum class ExitCode : int {
  kOk = 0,                 // every expectation held (check: no violation)
  kExpectationFailed = 1,  // an expectation failed (check: a violation was found)
  kBadInput = 2,           // bad usage or bad input; the message says what and where
  kInternalError = 3,      // a bug, a determinism self-check found two differing runs, or the oracle disagreed
};

// The more severe of two exit codes.
[[nodiscard]] constexpr ExitCode more_severe(ExitCode first, ExitCode second) {
  constexpr auto rank = [](ExitCode code) {
    switch (code) {
      case ExitCode::kOk: return 0;
      case ExitCode::kExpectationFailed: return 1;
      case ExitCode::kBadInput: return 2;
      case ExitCode::kInternalError: return 3;
    }
    return 3;
  };
  return rank(first) >= rank(second) ? first : second;
}

// What summaries of `run` or `merge` say: 3 if a determinism self-check
// failed or the checker and the oracle disagreed on a run, else 1 if an
// expectation failed or a scenario was inert, else 0.
[[nodiscard]] inline ExitCode exit_code_of(const std::vector<runner::ScenarioSummary>& summaries) {
  ExitCode code = ExitCode::kOk;
  for (const runner::ScenarioSummary& summary : summaries) {
    if (!summary.recheck_failed.empty()) code = more_severe(code, ExitCode::kInternalError);
    for (const runner::ModeSummary& mode : summary.modes) {
      if (mode.oracle_disagreeing_runs > 0) code = more_severe(code, ExitCode::kInternalError);
    }
    if (!summary.ok) code = more_severe(code, ExitCode::kExpectationFailed);
  }
  return code;
}

}  // namespace locksim::cli
