#pragma once
// double_holder (docs/history-format.md): two workers' hold.begin…hold.end intervals
// on one lock overlap in true time.
//
// Where a hold has no hold.end, it ends at the worker's crash, at its next
// hold.begin on the lock, or at the end of the history (run.end, or the
// cut-off end) — and, when the worker's calls tell its lease, no later than
// the lease: the `*.invoke` time of its last successful acquire or renewal of
// the lock plus that call's `lease_ns`, the earliest moment the service may
// have let it go (an acquisition's lease is for the hold.begin after it). A history converted from another tool often has no
// hold.end at all; without this rule every hand-over after a lease ran out
// would read as a double holder. Only a later sign of the worker acting as
// the holder — its hold.end, or a renewal whose lease reaches past the other
// hold.begin — shows that it held on, so an overlap with a hold whose lease
// has run out is confirmed (and reported) when that sign comes, and dropped
// if it never does. hold_ends_from_lease() counts the holds whose end was
// taken from the lease.
//
// Reported once per overlapping pair, at the later hold.begin (or at the
// event that confirmed it), with both hold.begin indices as evidence. The
// pairs of one busy period of the lock (a stretch in which it always had a
// holder) are one incident: one pause that overlaps twenty short holds is
// twenty pairs and one incident. A second hold.begin by the same worker on the
// same lock replaces its interval (no overlap with itself). At equal true
// times history order decides; a hold that begins at the instant another's
// lease ends does not overlap it.
//
// Memory: one entry per open hold, per (worker, lock) whose lease is known,
// and per overlapping pair found.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/by_id.h"
#include "checker/name_ids.h"
#include "checker/token.h"
#include "checker/violation.h"

namespace locksim::checker {

class DoubleHolderCheck {
 public:
  // `event` carries its name ids from `names` (HistoryChecker interns them).
  void observe(const Event& event, const NameIds& names);
  // Ends the pass: the violations, each with its incident.
  [[nodiscard]] std::vector<Violation> finish(const NameIds& names);
  // How many holds ended at their lease, not at a hold.end, crash or the end of the history.
  [[nodiscard]] std::int64_t hold_ends_from_lease() const { return hold_ends_from_lease_; }

 private:
  // Another worker's hold.begin after this hold's lease ran out: an overlap
  // only if this worker later shows it held on.
  struct Suspect {
    std::int64_t event_index = 0;
    std::int64_t time_ns = 0;
    std::string worker;
    Token token;
  };
  struct Hold {
    std::int64_t event_index = 0;
    std::int64_t time_ns = 0;
    Token token;
    std::optional<std::int64_t> lease_end_ns;  // from the worker's calls; nullopt: unknown
    std::vector<Suspect> suspects;
  };
  using Holds = std::map<std::string, Hold, std::less<>>;  // worker -> its open hold
  // A worker's calls to the service that tell its lease (looked up on
  // every acquire and renew event: by id, never iterated).
  struct Calls {
    ById<std::int64_t> acquiring;      // lock -> acquire.invoke time
    NameId renewing_lock = kNoName;    // of the last renew.invoke
    std::int64_t renew_invoked_ns = 0;
    ById<std::int64_t> lease_end;      // lock -> invoke + lease_ns
  };

  void begin_hold(const Event& event);
  // The worker renewed its lease on `lock`: it now ends at `lease_end_ns`.
  void renewed(const Event& event, NameId lock, std::string_view lock_name, std::int64_t lease_end_ns);
  // Ends `worker`'s hold on `lock` at `time_ns`; `held_on`: the worker showed it held it until then.
  void end_hold(Holds& holds, std::string_view worker, const Event& event, bool held_on);
  void report(const Hold& held, std::string_view held_by, const Suspect& later, std::string_view lock,
              std::int64_t detected_at);

  ById<Holds> open_holds_;  // lock ->; walked in lock order at a crash
  ById<Calls> calls_;       // worker ->
  std::vector<Violation> violations_;
  // Pairs of hold.begin indices in one busy period: each violation's, and a
  // hold replaced by the same worker's next one while it was still on.
  std::vector<std::pair<std::int64_t, std::int64_t>> joined_;
  std::int64_t hold_ends_from_lease_ = 0;
  std::int64_t last_time_ns_ = 0;
};

}  // namespace locksim::checker
