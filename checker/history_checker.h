#pragma once
// HistoryChecker: runs every check of docs/history-format.md over one history in a
// single streaming pass and returns the verdict — violations with evidence,
// which checks ran and which could not (and why), and the counts.
//
// What it promises:
// - Pure and deterministic: the verdict depends only on the events and the
//   options; the same history gives the same verdict, byte for byte, in the
//   reports. No wall clock, no hash-ordered iteration reaches the output.
// - O(n log n) time; memory proportional to the open leases and holds (plus
//   the violations, and one entry per worker, lock, key and billing job).
// - A check that lacks the events it needs is listed in checks_skipped with
//   the reason, never reported as passing.
//
// Usage: construct, observe() each event in order (e.g. from
// read_history_file), then finish() once; or call check_history_file().

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/double_grant_check.h"
#include "checker/double_holder_check.h"
#include "checker/duplicate_effect_check.h"
#include "checker/event.h"
#include "checker/foreign_release_check.h"
#include "checker/history_reader.h"
#include "checker/lease_tracker.h"
#include "checker/lost_update_check.h"
#include "checker/name_ids.h"
#include "checker/stale_write_check.h"
#include "checker/stuck_lock_check.h"
#include "checker/token_order_check.h"
#include "checker/violation.h"

namespace locksim::checker {

struct CheckOptions {
  // stuck_lock's threshold in ns; overrides run.begin's `stuck_after_ns` and
  // the default (10 × lease, or 1 minute without a lease). Default: unset.
  std::optional<std::int64_t> stuck_after_ns;
};

struct CheckSkip {
  ViolationKind check = ViolationKind::kDoubleGrant;
  std::string why;
};

struct Counts {
  std::int64_t acquisitions = 0;     // acquire.ok events
  std::int64_t accepted_writes = 0;  // write.accept events
  std::int64_t rejected_writes = 0;  // write.reject events
  std::int64_t late_writes = 0;      // superseded writers' writes that still landed in lock order (not a violation)
  std::vector<std::int64_t> late_write_events;  // those writes' write.accept (black-box without storage: write.ok) indices
  std::map<std::string, std::int64_t> rejected_writes_by_reason;
};

struct HistoryVerdict {
  std::string file;
  std::int64_t events = 0;
  // False when the history was cut off (a last line incomplete, or no run.end).
  bool complete = true;
  // What a reader must know to read the verdict: what is missing from a
  // cut-off history (the checks ran on what is there), how many hold ends
  // were taken from the lease.
  std::vector<std::string> notes;
  std::string stale_write_mode;  // "white-box" or "black-box" when stale_write ran
  std::vector<ViolationKind> checks_run;
  std::vector<CheckSkip> checks_skipped;
  std::vector<Violation> violations;  // in the order they happened
  Counts counts;

  // The run-summary count for `kind` (lost_update: the updates lost), or
  // nullopt when the check did not run.
  [[nodiscard]] std::optional<std::int64_t> violation_count(ViolationKind kind) const;
  // How many incidents of `kind` (distinct `incident` of its violations), or
  // nullopt when the check did not run.
  [[nodiscard]] std::optional<std::int64_t> incident_count(ViolationKind kind) const;
  [[nodiscard]] bool ok() const { return violations.empty(); }
  // Whether any check ran: a history where every check was skipped judged nothing (no pass).
  [[nodiscard]] bool judged() const { return !checks_run.empty(); }
};

class HistoryChecker {
 public:
  explicit HistoryChecker(CheckOptions options = {});

  void observe(const Event& event);
  // Ends the pass. `summary` tells whether the history was cut off.
  [[nodiscard]] HistoryVerdict finish(std::string file, const ReadSummary& summary);

 private:
  // `event` with the ids of its names, interned once for every check.
  [[nodiscard]] Event with_name_ids(const Event& event);
  void apply_changes();
  void observe_run_begin(const Event& event);
  void count(const Event& event);
  // Picks stale_write's mode and adds its findings; the reason when it cannot run.
  std::optional<std::string> choose_stale_write(HistoryVerdict& verdict);

  CheckOptions options_;
  NameIds names_;
  LeaseTracker leases_;
  std::vector<QuorumChange> changes_;
  DoubleGrantCheck double_grant_;
  DoubleHolderCheck double_holder_;
  StaleWriteCheck stale_write_;
  ForeignReleaseCheck foreign_release_;
  StuckLockCheck stuck_lock_;
  LostUpdateCheck lost_update_;
  DuplicateEffectCheck duplicate_effect_;
  TokenOrderCheck token_order_;
  std::vector<Violation> violations_;
  Counts counts_;
  bool saw_lease_grant_ = false;
  bool saw_lease_release_ = false;
  bool saw_hold_begin_ = false;
  bool saw_acquire_token_ = false;
  bool saw_text_token_ = false;
  bool saw_read_at_storage_ = false;   // read.accept / read.reject
  bool saw_write_at_storage_ = false;  // write.accept / write.reject
  bool saw_write_ = false;             // any write event
};

// The verdict for the file at `path`, or the reason it is bad input.
struct CheckOutcome {
  std::optional<HistoryError> error;
  HistoryVerdict verdict;
};
[[nodiscard]] CheckOutcome check_history_file(const std::string& path, const CheckOptions& options);
[[nodiscard]] CheckOutcome check_history_text(std::string_view text, std::string_view name,
                                              const CheckOptions& options);

}  // namespace locksim::checker
