#pragma once
// stuck_lock (docs/history-format.md): a lease stays valid for longer than
// `stuck_after` after its owner stopped being a useful holder — it crashed,
// or it ended its hold (hold.end) while renewals went on — while another
// worker's acquires fail.
//
// Decisions (docs/checker.md):
// - The owner is useless on a lock from the earliest of its crash and its
//   hold.end on that lock that came after its last hold.begin there (a worker
//   that crashed before its first hold.begin is useless from the crash).
//   A lease.grant to the owner or its acquire.ok on the lock counts as a
//   hold.begin here: an owner granted the lock again is acquiring (waiting on
//   WAIT replicas, say), not idle, until its next hold.end or crash.
// - Reported at the first acquire.fail on the lock, by another worker, more
//   than stuck_after after that moment while the owner still has a promise on
//   the lock (any instance: a minority of stuck promises also blocks a quorum);
//   once per (owner, lock, moment it became useless).
// - stuck_after: the --stuck-after option, else run.begin's `stuck_after_ns`,
//   else the scenario default (docs/scenario-format.md): 10 × the owner's lease, or
//   1 minute for a lease with no expiry.
//
// Memory: one entry per worker and per (worker, lock) it held.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/event.h"
#include "checker/lease_tracker.h"
#include "checker/by_id.h"
#include "checker/name_ids.h"
#include "checker/violation.h"

namespace locksim::checker {

// The scenario default when the lease has no expiry (docs/scenario-format.md).
inline constexpr std::int64_t kStuckAfterWithoutLeaseNs = 60'000'000'000;
// The scenario default is this many leases.
inline constexpr std::int64_t kStuckAfterLeases = 10;

class StuckLockCheck {
 public:
  // `stuck_after_ns`: the fixed threshold if known, else per-lease defaults.
  void set_stuck_after(std::optional<std::int64_t> stuck_after_ns) { stuck_after_ns_ = stuck_after_ns; }
  // `event` carries its name ids from `names` (HistoryChecker interns them).
  void observe(const Event& event, const LeaseTracker& leases, const NameIds& names,
               std::vector<Violation>& violations);

 private:
  struct Moment {
    std::int64_t event_index = -1;
    std::int64_t time_ns = 0;
  };
  struct HoldRecord {
    std::optional<Moment> began;  // its last hold.begin, lease.grant or acquire.ok
    std::optional<Moment> ended;
    std::int64_t reported_useless_index = -1;  // the useless moment already reported
  };
  // When `owner` became useless on `lock`, and why; nullopt if it is not.
  [[nodiscard]] std::optional<std::pair<Moment, std::string_view>> useless_since(NameId owner,
                                                                               const HoldRecord* hold) const;
  // `owner` began holding, or was granted or acquired `event`'s lock: useful again.
  void active_again(NameId owner, const Event& event);
  [[nodiscard]] std::int64_t threshold_ns(const OwnerStanding& standing) const;
  void judge_failed_acquire(const Event& event, const LeaseTracker& leases, const NameIds& names,
                            std::vector<Violation>& violations);

  std::optional<std::int64_t> stuck_after_ns_;
  ById<Moment> crash_by_worker_;  // worker ->
  // The hold record of (worker, lock), made if new; the record if any, else nullptr.
  HoldRecord& hold_of(NameId worker, NameId lock);
  HoldRecord* find_hold(NameId worker, NameId lock);

  ById<ById<HoldRecord>> holds_;  // worker -> lock -> its holds
};

}  // namespace locksim::checker
