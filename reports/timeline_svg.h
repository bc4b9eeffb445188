#pragma once
// The swimlane picture of one run (reports/timeline.h's model) as SVG: one
// lane per worker, lock-service instance and storage; the lease as the
// service promised it beside the worker's belief that it holds the lock;
// pauses hatched; clock jumps marked; writes labelled "qty=6 t3", a stale
// one red, a late one amber, a rejected one crossed out; violations called
// out; an axis in seconds of true time; a legend and a title. No label
// prints over another label or a bar (reports/label_layout.h): the most
// important are placed first, and one with no room is listed below.
//
// Deterministic: the same timeline and options give the same bytes.

#include <cstdint>
#include <optional>
#include <string>

#include "reports/timeline.h"

namespace locksim::reports {

// A note the caller wants on the picture ("the critical event"), drawn as a
// marked line at `time_ns` on `lane` (a proc name; an unknown one: across all lanes).
struct TimelineNote {
  std::string text;
  std::int64_t time_ns = 0;
  std::string lane;
};

// The stretch of true time the picture shows.
struct TimelineWindow {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

struct TimelineOptions {
  // Unset: the whole run. Set: only this much true time either side of the
  // first violation (the whole run when there is none).
  std::optional<std::int64_t> around_first_violation_ns;
  // Set: exactly this stretch, clipped to the run (the critical window of a
  // long run, enlarged); wins over around_first_violation_ns.
  std::optional<TimelineWindow> window;
  std::optional<TimelineNote> note;
  // Put before every id the picture defines (patterns, markers), so that
  // several pictures inline in one HTML page keep their ids apart.
  std::string id_prefix;
};

[[nodiscard]] TimelineWindow timeline_window(const Timeline& timeline, const TimelineOptions& options);

// Where `time_ns` is drawn, in pixels from the picture's left edge.
[[nodiscard]] double timeline_x(const TimelineWindow& window, std::int64_t time_ns);

// Where the action is, when it is a small part of the run: from the first
// violation to the last, with a quarter of that (at least 100 ms) either side,
// when that is under a quarter of the run; nullopt when there is no violation
// or the whole picture already shows it large enough.
[[nodiscard]] std::optional<TimelineWindow> critical_window(const Timeline& timeline);

[[nodiscard]] std::string timeline_svg(const Timeline& timeline, const TimelineOptions& options = {});

}  // namespace locksim::reports
