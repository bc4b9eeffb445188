#pragma once
// double_holder (spec/history.md): two workers' hold.begin…hold.end intervals
// on one lock overlap in true time. An interval with no hold.end runs to the
// worker's crash or to the end of the history (run.end, or the cut-off end).
//
// Reported once per overlapping pair, at the later hold.begin, with both
// hold.begin indices as evidence. A second hold.begin by the same worker on
// the same lock replaces its interval (no overlap with itself). At equal true
// times history order decides.
//
// Memory: one entry per open hold.

#include <map>
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
  // lock -> worker -> its open hold
  std::map<std::string, std::map<std::string, Hold, std::less<>>, std::less<>> holds_by_lock_;
};

}  // namespace locksim::checker
