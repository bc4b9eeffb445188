#pragma once
// The timeline of one run: what a swimlane picture of it shows, worked out
// from its history lines and the checker's verdict, with no drawing in it.
//
// The lesson of a lease-based lock is the gap between two things that are
// easy to confuse: the lease as the lock service promised it, and the
// worker's belief that it holds the lock. So the model keeps both, on
// separate lanes, beside the faults that open the gap (a pause, a clock
// jump) and the writes that fall into it (stale, late, rejected).
//
// Pure and deterministic: the same entries and verdict give the same model.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/history_checker.h"
#include "checker/violation.h"
#include "reports/trace.h"

namespace locksim::reports {

enum class LaneKind : std::uint8_t { kWorker, kService, kStorage, kExternal };

// One horizontal row of the picture: a worker, a lock-service instance,
// storage, or an external service (payments).
struct Lane {
  std::string name;  // the proc
  LaneKind kind = LaneKind::kWorker;
};

// A lease as one service instance promised it: from lease.grant or
// lease.adopt (renewals extend it) to where the instance let it go.
struct LeaseBar {
  std::size_t lane = 0;  // the instance's lane
  std::string owner;
  std::string token;  // as written in the history ("6"); empty without one
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::string ended_by;  // "lease.expire", "lease.release", "lease.lost", or "end of run"
  std::int64_t renewals = 0;
};

// A worker's belief that it holds the lock: hold.begin to hold.end (or its
// crash, or the end of the run).
struct BeliefBar {
  std::size_t lane = 0;  // the worker's lane
  std::string token;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::string ended_by;  // hold.end's reason ("released", "expired", "lost", "crash"), "crash" or "end of run"
  // Redlock: where the validity its acquire.ok reported (validity_ns) ran out, in true time.
  std::optional<std::int64_t> valid_until_ns;
};

// A fault that lasts: a pause, a partition, a failover, a delay spike, a
// crash until its restart, memory pressure with a `for`... (fault.begin to
// fault.end, or the end of the run).
struct FaultSpan {
  std::size_t lane = 0;  // one span per target lane
  std::string kind;      // the fault's `kind`: "pause", "partition", ...
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::string label;  // "pause 16.12s"
};

// A fault that happens at an instant: a clock jump, memory pressure over at
// once, or the start of a fault whose span is drawn elsewhere.
struct FaultMarker {
  std::size_t lane = 0;
  std::string kind;  // "clock-jump", "memory-pressure", "clock-drift"
  std::int64_t time_ns = 0;
  std::string label;  // "clock -5s"
};

enum class WriteClass : std::uint8_t {
  kOk,
  kLate,      // a superseded holder's write that still landed in lock order
  kStale,     // storage accepted it out of lock order (a stale_write violation)
  kRejected,  // storage turned it away (write.reject)
};

// One write, from the worker's write.invoke to storage's verdict on it.
struct TimelineWrite {
  std::size_t writer_lane = 0;
  std::optional<std::int64_t> invoke_ns;  // unset when the history lacks the write.invoke
  std::optional<std::int64_t> storage_ns;  // unset when it never reached storage
  std::int64_t storage_index = -1;         // the write.accept / write.reject event
  std::string key;
  std::string value;  // the value's JSON text
  std::string token;  // the write's token, else the writer's hold's
  WriteClass write_class = WriteClass::kOk;
  std::string reject_reason;

  [[nodiscard]] std::string label() const;  // "qty=6 t3"
};

// A read storage turned away (fenced reads): with fencing, often the first
// thing a superseded holder tries on waking, so it is where fencing acts.
struct TurnedAwayRead {
  std::size_t reader_lane = 0;
  std::optional<std::int64_t> invoke_ns;
  std::int64_t storage_ns = 0;
  std::string key;
  std::string token;  // the read's, else the reader's hold's
  std::string reason;

  [[nodiscard]] std::string label() const;  // "read qty t6"
};

// A call to an external service (billing's payments API), from the
// worker's effect.invoke to the service's effect.accept or effect.reject.
// The service takes no token, so fencing cannot turn a late call away: a
// second accepted effect for one job is a duplicate_effect.
struct TimelineEffect {
  std::size_t service_lane = 0;  // the external service's lane
  std::size_t caller_lane = 0;   // the worker's
  std::optional<std::int64_t> invoke_ns;  // unset when the history lacks the effect.invoke
  std::int64_t landed_ns = 0;
  std::string job;    // as written ("0", "\"customer-1\"")
  bool accepted = true;    // false: effect.reject (a repeated idempotency key)
  bool duplicate = false;  // a duplicate_effect violation names this accept

  [[nodiscard]] std::string label() const;  // "job 0", "job 0 again"
};

// A violation to call out on the picture.
struct TimelineCallout {
  checker::ViolationKind kind = checker::ViolationKind::kStaleWrite;
  std::int64_t time_ns = 0;
  std::string detail;              // the checker's line
  std::optional<std::size_t> lane;  // the lane of the event that shows it
};

struct Timeline {
  std::string scenario;
  std::optional<std::int64_t> seed;
  std::optional<bool> fencing;
  std::int64_t end_ns = 0;  // run.end, else the last event
  std::vector<Lane> lanes;  // workers, lock-service instances, storage, external services
  std::vector<LeaseBar> leases;
  std::vector<BeliefBar> beliefs;
  std::vector<FaultSpan> spans;
  std::vector<FaultMarker> markers;
  std::vector<TimelineWrite> writes;    // in the order they were invoked (or reached storage)
  std::vector<TurnedAwayRead> turned_away_reads;
  std::vector<TimelineEffect> effects;  // in the order they landed
  std::vector<TimelineCallout> callouts;  // one per incident, in the verdict's order

  [[nodiscard]] std::optional<std::size_t> lane_of(std::string_view proc) const;
};

// The timeline of the run whose history is `entries` (in history order),
// judged by `verdict` (the checker's, on the same history).
[[nodiscard]] Timeline build_timeline(const std::vector<TraceEntry>& entries, const checker::HistoryVerdict& verdict);

}  // namespace locksim::reports
