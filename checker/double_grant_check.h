#pragma once
// double_grant (docs/history-format.md): two promised leases on one lock for
// different owners overlap in true time. For a multi-instance service an
// owner's lease is the interval in which a quorum of instances each promise
// it one; LeaseTracker computes those intervals with a sweep line and this
// check reports each pair of owners whose intervals overlap, once per overlap,
// at the moment the second owner gains the lock. The pairs of one busy period
// of the lock (a stretch in which some owner always held a quorum) are one
// incident.
//
// Decision: intervals are half-open [gain, loss); at equal true times history
// order decides, so a grant recorded after the previous lease's lease.expire
// at the same nanosecond is no overlap, and one recorded before it is.
//
// Memory: one entry per owner currently holding a quorum, and per lock.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/lease_tracker.h"
#include "checker/by_id.h"
#include "checker/name_ids.h"
#include "checker/violation.h"

namespace locksim::checker {

class DoubleGrantCheck {
 public:
  // Requires changes in true-time order, as LeaseTracker makes them; their
  // names are ids in `names`.
  void observe(const QuorumChange& change, int quorum, const NameIds& names, std::vector<Violation>& violations);

 private:
  struct Holding {
    std::int64_t event_index = -1;
    std::int64_t time_ns = 0;
    NameId instance = kNoName;
    Token token;
  };
  // A lock's busy period: the owners it is promised to, and the incident of
  // the period once two were promised at once. No holders: nobody is
  // promised it (the entry stays, so a lock's every lease does not remake it).
  struct BusyLock {
    // owner -> its holding, walked in owner-name order (the names are NameIds' text, which outlives this)
    std::map<std::string_view, Holding> holders;
    std::optional<std::int64_t> incident;
  };
  ById<BusyLock> busy_locks_;  // lock ->
};

}  // namespace locksim::checker
