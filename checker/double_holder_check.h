#pragma once
// double_holder (spec/history.md): two workers' hold.begin…hold.end intervals
// on one lock overlap in true time. An interval with no hold.end runs to the
// worker's crash or to the end of the history (run.end, or the cut-off end).
//
// Reported once per overlapping pair, at the later hold.begin, with both
// hold.begin indices as evidence. The pairs of one busy period of the lock (a
// stretch in which it always had a holder) are one incident: one pause that
// overlaps twenty short holds is twenty pairs and one incident. A second hold.begin by the same worker on
// the same lock replaces its interval (no overlap with itself). At equal true
// times history order decides.
//
// Memory: one entry per open hold, and per lock.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/token.h"
#include "checker/violation.h"

namespace locksim::checker {

class DoubleHolderCheck {
 public:
  void observe(const Event& event, std::vector<Violation>& violations);

 private:
  struct Hold {
    std::int64_t event_index = 0;
    std::int64_t time_ns = 0;
    Token token;
  };
  // A lock's busy period: its open holds, and the incident of the period once
  // two of them overlapped. A lock with no open hold has no incident, so the
  // next hold starts a new period (the entry stays: it is not remade per hold).
  struct BusyLock {
    std::map<std::string, Hold, std::less<>> holds;  // worker -> its open hold
    std::optional<std::int64_t> incident;
  };
  std::map<std::string, BusyLock, std::less<>> busy_locks_;
};

}  // namespace locksim::checker
