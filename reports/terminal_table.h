#pragma once
// The run summary for people: one table row per scenario and fencing mode
// with the incidents of each violation kind, late writes and the run
// outcomes; a legend; per mode the violations behind the incidents and the
// share of runs with each; then for every scenario that failed what failed
// and the exact command that replays its first failing seed (and its first
// run that stopped short).

#include <string>
#include <vector>

#include "runner/summary.h"

namespace locksim::reports {

enum class TableDetail {
  kFull,          // the table, the failures and the closing count
  kFailuresOnly,  // `--quiet`: only the failures and the closing count
};

// "passed", "reproduced" (a stated "> 0"-style expectation held), "not
// judged" (a mode ran that no stated expectation applies to) or "failed".
[[nodiscard]] std::string scenario_status(const runner::ScenarioSummary& scenario);

// The short column head of a violation kind: "dgrant", "dholder", "stale", … (the sweep table uses them too).
[[nodiscard]] std::string_view violation_column_head(checker::ViolationKind kind);

// `unloaded_files`: scenario files that could not be loaded, named in the closing line.
[[nodiscard]] std::string summary_to_table(const std::vector<runner::ScenarioSummary>& scenarios,
                                           TableDetail detail = TableDetail::kFull, std::size_t unloaded_files = 0);

// "speed: 4700 runs (seed x mode) in 0.52 s wall (1.01 s CPU) on 2 threads: 9000 runs/s, 6.1 M events/s,
// virtual/wall 1.2e6": wall time is what the user waited, CPU time the threads spent.
[[nodiscard]] std::string speed_line(const std::vector<runner::ScenarioSummary>& scenarios, unsigned threads);

// "recheck: 4 seeds run twice, histories identical" (or which seeds differed).
[[nodiscard]] std::string recheck_line(const std::vector<runner::ScenarioSummary>& scenarios);

// For stderr: a line per scenario whose determinism self-check failed, and
// per mode whose checker and oracle disagreed (with the first seeds); "" if none.
[[nodiscard]] std::string internal_failures(const std::vector<runner::ScenarioSummary>& scenarios);

}  // namespace locksim::reports
