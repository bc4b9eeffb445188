#pragma once
// lost_update (docs/history-format.md, counter workload: each job reads the key and
// writes read+1): accepted writes − final value > 0; the count is that
// difference, reported as one entry per history at run.end.
//
// Decisions (docs/checker.md):
// - Which keys are counters: if run.begin declares `workload` "counter",
//   every key with an accepted write or an integer final value (a counter
//   never written is judged too); if it declares another workload, the
//   check does not apply; if it declares none, the keys whose accepted writes
//   all carry integer values and whose final value is an integer.
// - A key missing from run.end's `final`, or whose final value is not an
//   integer, cannot be judged and is left out.
// - Without a run.end carrying `final` (a cut-off history) the check cannot run.
//
// Memory: one entry per key written.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/violation.h"

namespace locksim::checker {

class LostUpdateCheck {
 public:
  void observe(const Event& event);

  // The violation, if updates were lost; call after the whole history.
  [[nodiscard]] std::optional<Violation> violation() const { return violation_; }
  // Why the check could not run, or nullopt if it ran.
  [[nodiscard]] std::optional<std::string> why_skipped() const;

 private:
  struct KeyWrites {
    std::int64_t accepted = 0;
    bool all_integer = true;
  };
  void judge(const Event& run_end);

  std::string declared_workload_;
  std::map<std::string, KeyWrites, std::less<>> writes_by_key_;
  bool judged_ = false;
  int keys_judged_ = 0;
  std::optional<Violation> violation_;
};

}  // namespace locksim::checker
