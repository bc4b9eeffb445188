#pragma once
// How verdicts are shown: the `check --json` document (docs/cli.md) and the
// terminal summary. Both are deterministic functions of the verdicts: same
// verdicts, same bytes.

#include <cstddef>
#include <string>
#include <vector>

#include "checker/history_checker.h"

namespace locksim::checker {

// The `check --json` document:
// { "histories": [ { "file", "events", "complete", "judged", "notes", "checks_run",
//   "checks_skipped": [{"check","why"}], "stale_write_mode",
//   "violations": [{"kind","events","t","detail","incident"[,"count"]}],
//   "violation_counts": {kind: count, or null when the check did not run},
//   "incident_counts": {kind: incidents, or null when the check did not run},
//   "counts": {"acquisitions","accepted_writes","rejected_writes"},
//   "rejected_writes_by_reason": {reason: count} } ], "ok" }
// `ok` is false when a history has a violation or judged nothing.
// `t` is true time in nanoseconds, like the history's `t`. Ends with a newline.
[[nodiscard]] std::string verdicts_json(const std::vector<HistoryVerdict>& verdicts);

// A few lines for a terminal: the file and its size, notes, skipped checks,
// one line per violation kind with its count, then the first
// `violations_shown` violations explained.
[[nodiscard]] std::string verdict_text(const HistoryVerdict& verdict, std::size_t violations_shown);

}  // namespace locksim::checker
