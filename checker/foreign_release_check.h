#pragma once
// foreign_release (docs/history-format.md): a lease.release whose `by` is not the
// lease's `owner` — the key was deleted at another worker's request (a plain
// DEL after the lease moved on, hazard H8). One violation per such release,
// with the grant of the deleted lease as evidence when the history has it.
//
// Memory: none of its own (the grant comes from LeaseTracker).

#include <optional>
#include <vector>

#include "checker/event.h"
#include "checker/lease_tracker.h"
#include "checker/violation.h"

namespace locksim::checker {

class ForeignReleaseCheck {
 public:
  // `released` is the promise the release ended (LeaseTracker::last_matched()).
  void observe(const Event& event, const std::optional<MatchedPromise>& released, std::vector<Violation>& violations);
};

}  // namespace locksim::checker
