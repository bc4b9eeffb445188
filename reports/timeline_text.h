#pragma once
// The swimlanes of reports/timeline.h in a terminal (`replay --timeline`):
// one column per lane, time going down in rows of equal true time, Unicode
// bars — for people who never leave the shell. The same story as the SVG:
// on a worker's column the lease the service promises it (█) beside its
// belief that it holds the lock (┃); where ┃ runs on without █ the worker
// acts on a lease nobody promises any more.
//
// Deterministic: the same timeline and options give the same text.

#include <string>

#include "reports/timeline.h"

namespace locksim::reports {

struct TimelineTextOptions {
  int rows = 40;        // rows of true time (at least 1)
  bool colour = false;  // ANSI colours (only when stdout is a terminal)
};

[[nodiscard]] std::string timeline_text(const Timeline& timeline, const TimelineTextOptions& options = {});

}  // namespace locksim::reports
