#pragma once
// Which lines of a replay trace to show and how to print numbers: the
// `replay` flags --procs, --around, --hide and --raw, read and checked here
// once, so that the trace and its tests see typed values only.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/violation.h"

namespace locksim::reports {

// The lines within `within_ns` of true time (either side) of each violation of `kind`.
struct TraceWindow {
  checker::ViolationKind kind = checker::ViolationKind::kStaleWrite;
  std::int64_t within_ns = 5'000'000'000;  // default 5 s
};

enum class NumberStyle : std::uint8_t {
  kReadable,  // "for=24.84s", times to the millisecond where that tells lines apart
  kRaw,       // "for_ns=24840898330", times to the nanosecond
};

struct TraceView {
  std::set<std::string> procs;                // only these procs' lines; empty: every proc
  std::optional<TraceWindow> around;          // only lines near these violations; nullopt: all
  std::vector<checker::EventKind> hidden;     // left out, counted at the end; in the order first named
  NumberStyle numbers = NumberStyle::kReadable;
};

// The flags as given on the command line (each list entry may hold several
// names separated by commas; the flags may repeat).
struct TraceFlags {
  std::vector<std::string> procs;  // --procs worker-1,redis-0
  std::string around;              // --around stale_write[:SECONDS]; "" when absent
  std::vector<std::string> hide;   // --hide acquire.fail
  bool raw = false;                // --raw
};

struct TraceViewParse {
  std::optional<TraceView> view;  // set iff every flag was valid
  std::string error;              // otherwise: the flag, the bad value and what is valid
};

// The procs a history of a scenario with these nodes can name: the nodes,
// and docs/history-format.md's two procs that are not nodes, "nemesis" and "run".
[[nodiscard]] std::vector<std::string> trace_proc_names(const std::vector<std::string>& node_names);

// Checks the flags: each --procs name must be one of `proc_names`; --around's
// kind a violation kind and its SECONDS a number of seconds ("2", "0.5") or a
// duration ("500ms"), not negative; each --hide name an event of the history
// contract.
[[nodiscard]] TraceViewParse parse_trace_view(const TraceFlags& flags, const std::vector<std::string>& proc_names);

}  // namespace locksim::reports
