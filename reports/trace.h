#pragma once
// The replay trace: one seed's history as lines a person can read — history
// index, true time, the proc's own clock, proc, event and its fields — with
// the checker's violations marked at the events that show them, narrowed by
// a TraceView (some procs, a window around each violation of one kind,
// hidden events), then how the run ended and the verdict.
//
// Deterministic: the text depends only on the entries, the verdict and the
// view. Reading for people, not machines: `--history` writes the exact JSONL.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/event.h"
#include "checker/history_line.h"
#include "checker/violation.h"
#include "reports/trace_view.h"
#include "runner/seed_run.h"
#include "scenario/scenario.h"

namespace locksim::reports {

// One history line, kept for printing, with the proc's clock then (nullopt
// for a proc that is not a node), which the caller who knows the clocks sets.
struct TraceEntry : checker::HistoryLine {
  std::optional<std::int64_t> local_time_ns;
};

// Reads one history line (checker::read_history_line; throws on a line that
// is not one), its local time unset.
[[nodiscard]] TraceEntry trace_entry(std::string_view history_line);

// The trace lines the view lets through, in history order:
//   a header row, then "  i  true  local  proc  event  fields   <<< kind";
//   "…" lines where a window of `around` left lines out;
//   with hidden events, a last line "hidden lines: acquire.fail 39926, ...".
// A line marked with a violation is never left out by `procs` or `hidden`.
// Fields ending in `_ns` print without the suffix as readable durations
// ("for=24.84s"), and `local_t` (a node's clock reading) like the time
// columns, unless the view asks for raw numbers. Both time columns use
// one precision: milliseconds, or the finest of microseconds / nanoseconds
// that the shown lines need so that two lines at different true times never
// read the same (raw: nanoseconds).
[[nodiscard]] std::string trace_text(const std::vector<TraceEntry>& entries,
                                     const std::vector<checker::Violation>& violations, const TraceView& view);

// The whole replay page: the scenario, seed and mode; trace_text (or, when
// given, `swimlanes` in its place: replay --timeline); the run's counts, why
// it stopped and what still waited; the verdict.
[[nodiscard]] std::string replay_text(const scenario::Scenario& scenario, const runner::SeedRun& run,
                                      const std::vector<TraceEntry>& entries, const TraceView& view,
                                      const std::optional<std::string>& swimlanes = std::nullopt);

}  // namespace locksim::reports
