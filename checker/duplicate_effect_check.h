#pragma once
// duplicate_effect (docs/history-format.md, billing workload): more than one accepted
// effect for the same `job` — storage's `write.accept` with that job, or an
// external service's `effect.accept` (a payments API), counted together. One
// violation per accept after the first, with the first accept as evidence. An
// `effect.reject` (a repeated idempotency key dropped) is no effect. The extra accepts of one job are one incident (one customer
// charged three times is two violations, one incident).
//
// Decisions: it runs when run.begin declares the billing workload, or declares
// none and some accepted write or effect carries a `job`; a declared non-billing
// workload is skipped (its jobs may legitimately write twice).
//
// Memory: one entry per distinct job accepted — the workload's unit of work
// (e.g. its customers), which the scenario bounds, not the history length.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/violation.h"

namespace locksim::checker {

class DuplicateEffectCheck {
 public:
  void observe(const Event& event);

  // The violations found (they count only if the check runs).
  [[nodiscard]] std::vector<Violation>& violations() { return violations_; }
  // Why the check could not run, or nullopt if it ran.
  [[nodiscard]] std::optional<std::string> why_skipped() const;

 private:
  struct FirstAccept {
    std::int64_t event_index = 0;
    std::int64_t time_ns = 0;
    std::string writer;
    bool external = false;  // an effect.accept, not a storage write
    std::optional<std::int64_t> incident;  // set at the job's first extra accept
  };
  std::string declared_workload_;
  bool saw_job_ = false;
  std::map<std::string, FirstAccept, std::less<>> first_accept_by_job_;
  std::vector<Violation> violations_;
};

}  // namespace locksim::checker
