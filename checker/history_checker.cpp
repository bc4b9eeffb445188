#include "checker/history_checker.h"
#include "vocabulary/setup_name.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace locksim::checker {

std::optional<std::int64_t> HistoryVerdict::violation_count(ViolationKind kind) const {
  if (std::find(checks_run.begin(), checks_run.end(), kind) == checks_run.end()) {
    return std::nullopt;
  }
  std::int64_t total = 0;
  for (const Violation& violation : violations) {
    if (violation.kind == kind) {
      total += violation.count;
    }
  }
  return total;
}

std::optional<std::int64_t> HistoryVerdict::incident_count(ViolationKind kind) const {
  if (std::find(checks_run.begin(), checks_run.end(), kind) == checks_run.end()) {
    return std::nullopt;
  }
  std::set<std::int64_t> incidents;
  for (const Violation& violation : violations) {
    if (violation.kind == kind) {
      incidents.insert(violation.incident);
    }
  }
  return static_cast<std::int64_t>(incidents.size());
}

HistoryChecker::HistoryChecker(CheckOptions options) : options_{options} {
  stuck_lock_.set_stuck_after(options_.stuck_after_ns);
}

namespace {

// Whether any check reads events of `kind`. Most of a history is invocations,
// replies and faults that no check needs: they only move time forward.
bool checks_read(EventKind kind) {
  switch (kind) {
    case EventKind::kRunBegin:
    case EventKind::kRunEnd:
    case EventKind::kAcquireInvoke:
    case EventKind::kAcquireOk:
    case EventKind::kAcquireFail:
    case EventKind::kRenewInvoke:
    case EventKind::kRenewOk:
    case EventKind::kHoldBegin:
    case EventKind::kHoldEnd:
    case EventKind::kCrash:
    case EventKind::kLeaseGrant:
    case EventKind::kLeaseRenew:
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseRelease:
    case EventKind::kLeaseLost:
    case EventKind::kLeaseAdopt:
    case EventKind::kReadOk:
    case EventKind::kReadAccept:
    case EventKind::kReadReject:
    case EventKind::kWriteInvoke:
    case EventKind::kWriteOk:
    case EventKind::kWriteAccept:
    case EventKind::kWriteReject:
    case EventKind::kEffectAccept:
      return true;
    default:
      return false;
  }
}

}  // namespace

Event HistoryChecker::with_name_ids(const Event& event) {
  Event named = event;
  named.process_id = names_.intern(event.process);
  named.lock_id = names_.intern(event.lock);
  named.owner_id = names_.intern(event.owner);
  named.writer_id = names_.intern(event.writer);
  named.reader_id = names_.intern(event.reader);
  return named;
}

void HistoryChecker::observe(const Event& unnamed) {
  changes_.clear();
  leases_.advance_to(unnamed.time_ns, changes_);
  apply_changes();
  if (!checks_read(unnamed.kind)) {
    return;
  }
  const Event event = with_name_ids(unnamed);

  switch (event.kind) {
    case EventKind::kRunBegin: observe_run_begin(event); break;
    case EventKind::kLeaseGrant: saw_lease_grant_ = true; break;
    case EventKind::kLeaseRelease: saw_lease_release_ = true; break;
    case EventKind::kHoldBegin: saw_hold_begin_ = true; break;
    case EventKind::kAcquireOk:
      saw_acquire_token_ = saw_acquire_token_ || event.token.has_value() || !event.token_text.empty();
      break;
    case EventKind::kReadAccept:
    case EventKind::kReadReject: saw_read_at_storage_ = true; break;
    case EventKind::kWriteAccept:
    case EventKind::kWriteReject: saw_write_at_storage_ = true; break;
    default: break;
  }
  saw_write_ = saw_write_ || event.kind == EventKind::kWriteInvoke || event.kind == EventKind::kWriteOk ||
               event.kind == EventKind::kWriteAccept || event.kind == EventKind::kWriteReject;
  saw_text_token_ = saw_text_token_ || !event.token_text.empty();
  leases_.observe(event, names_, changes_);
  apply_changes();
  foreign_release_.observe(event, leases_.last_matched(), violations_);
  double_holder_.observe(event, names_);
  stale_write_.observe(event, names_);
  stuck_lock_.observe(event, leases_, names_, violations_);
  lost_update_.observe(event);
  duplicate_effect_.observe(event);
  token_order_.observe(event, names_, violations_);
  count(event);
}

void HistoryChecker::apply_changes() {
  for (const QuorumChange& change : changes_) {
    double_grant_.observe(change, leases_.quorum(), names_, violations_);
    stale_write_.observe_change(change);
  }
  changes_.clear();
}

void HistoryChecker::observe_run_begin(const Event& event) {
  // The quorum applies from the first lease on; a run.begin after leases
  // began (not a recorder's doing) cannot change how they were counted.
  // A Redlock service that names its instances but not its quorum uses the
  // algorithm's majority.
  std::optional<std::int64_t> quorum = event.service_quorum;
  if (!quorum && event.service_kind == vocabulary::service_kind::kRedlock && event.service_instances && *event.service_instances > 0) {
    quorum = *event.service_instances / 2 + 1;
  }
  if (quorum && !saw_lease_grant_) {
    leases_.set_quorum(static_cast<int>(std::min<std::int64_t>(*quorum, 1'000'000)));
  }
  if (!saw_lease_grant_) {
    // Redlock's instances each count their own tokens; a primary and its
    // replica share one counter (it replicates), as one service does.
    const bool counter_per_instance = event.service_kind == vocabulary::service_kind::kRedlock || (quorum && *quorum > 1);
    token_order_.set_counter_per_instance(counter_per_instance);
    stale_write_.set_counter_per_instance(counter_per_instance);
  }
  if (event.stuck_after_ns && !options_.stuck_after_ns) {
    stuck_lock_.set_stuck_after(event.stuck_after_ns);
  }
}

std::optional<std::string> HistoryChecker::choose_stale_write(HistoryVerdict& verdict) {
  StaleWriteCheck::Findings* found = nullptr;
  if (!saw_write_) {
    return "no writes in the history (write.invoke, write.ok, write.accept): nothing to judge";
  }
  if (saw_lease_grant_) {
    // White-box orders gains by the lease events, not by token values, so
    // opaque string tokens do not stop it.
    verdict.stale_write_mode = "white-box";
    found = &stale_write_.white_box(saw_read_at_storage_ ? StaleWriteCheck::ReadServes::kReadAccept
                                                         : StaleWriteCheck::ReadServes::kReadOk);
  } else if (saw_text_token_) {
    return "the history's tokens are opaque strings (equality only), so token order is unknown";
  } else if (saw_acquire_token_) {
    verdict.stale_write_mode = "black-box";
    found = &stale_write_.black_box(saw_write_at_storage_ ? StaleWriteCheck::Judged::kWriteAccept
                                                          : StaleWriteCheck::Judged::kWriteOk);
  } else {
    return "no lease.grant events and no acquire.ok with a `token`: nothing tells which lease is newer";
  }
  violations_.insert(violations_.end(), found->violations.begin(), found->violations.end());
  counts_.late_writes = found->late_writes;
  counts_.late_write_events = found->late_write_events;
  return std::nullopt;
}

void HistoryChecker::count(const Event& event) {
  switch (event.kind) {
    case EventKind::kAcquireOk: ++counts_.acquisitions; break;
    case EventKind::kWriteAccept: ++counts_.accepted_writes; break;
    case EventKind::kWriteReject: {
      ++counts_.rejected_writes;
      auto found = counts_.rejected_writes_by_reason.find(std::string{event.reason});
      if (found == counts_.rejected_writes_by_reason.end()) {
        counts_.rejected_writes_by_reason.emplace(std::string{event.reason}, 1);
      } else {
        ++found->second;
      }
      break;
    }
    default: break;
  }
}

HistoryVerdict HistoryChecker::finish(std::string file, const ReadSummary& summary) {
  HistoryVerdict verdict;
  verdict.file = std::move(file);
  verdict.events = summary.events;
  verdict.complete = !summary.cut_off_line && summary.has_run_end;
  if (summary.cut_off_line) {
    verdict.notes.push_back(fmt::format("line {} is incomplete (the recorder was cut off mid-write); checked the {} "
                                        "complete events before it",
                                        *summary.cut_off_line, summary.events));
  }
  if (!summary.has_run_end) {
    verdict.notes.push_back("no run.end: the history is cut off; open holds and leases run to its last event");
  }

  const auto run = [&](ViolationKind kind, std::optional<std::string> why_skipped) {
    if (why_skipped) {
      verdict.checks_skipped.push_back(CheckSkip{kind, std::move(*why_skipped)});
      std::erase_if(violations_, [kind](const Violation& violation) { return violation.kind == kind; });
    } else {
      verdict.checks_run.push_back(kind);
    }
  };
  const auto unless = [](bool has_events, const char* why) {
    return has_events ? std::nullopt : std::optional<std::string>{why};
  };

  run(ViolationKind::kDoubleGrant, unless(saw_lease_grant_, "no lock-service events (lease.grant) in the history"));
  {
    std::vector<Violation> holders = double_holder_.finish(names_);
    violations_.insert(violations_.end(), holders.begin(), holders.end());
  }
  run(ViolationKind::kDoubleHolder, unless(saw_hold_begin_, "no hold.begin events in the history"));
  if (const std::int64_t from_lease = double_holder_.hold_ends_from_lease(); from_lease > 0 && saw_hold_begin_) {
    verdict.notes.push_back(fmt::format("{} hold end{} taken from the lease: a hold without hold.end ends at its last "
                                        "acquire or renew invoke plus that call's lease_ns",
                                        from_lease, from_lease == 1 ? "" : "s"));
  }
  run(ViolationKind::kStaleWrite, choose_stale_write(verdict));
  run(ViolationKind::kForeignRelease,
      unless(saw_lease_grant_ || saw_lease_release_, "no lock-service events (lease.grant, lease.release)"));
  run(ViolationKind::kStuckLock, unless(saw_lease_grant_, "no lock-service events (lease.grant) in the history"));
  if (const auto lost = lost_update_.violation()) {
    violations_.push_back(*lost);
  }
  run(ViolationKind::kLostUpdate, lost_update_.why_skipped());
  auto& duplicates = duplicate_effect_.violations();
  violations_.insert(violations_.end(), duplicates.begin(), duplicates.end());
  run(ViolationKind::kDuplicateEffect, duplicate_effect_.why_skipped());
  run(ViolationKind::kTokenOrder, unless(saw_lease_grant_ || saw_acquire_token_,
                                         "no lease.grant events and no acquire.ok with a `token`: no tokens to order"));

  // The order they happened in (a double holder confirmed later still
  // happened at its hold.begin), then detection order, then kind order: the
  // same history always lists the same way.
  std::stable_sort(violations_.begin(), violations_.end(), [](const Violation& left, const Violation& right) {
    if (left.time_ns != right.time_ns) return left.time_ns < right.time_ns;
    return left.detected_at != right.detected_at ? left.detected_at < right.detected_at : left.kind < right.kind;
  });
  verdict.violations = std::move(violations_);
  verdict.counts = std::move(counts_);
  return verdict;
}

CheckOutcome check_history_file(const std::string& path, const CheckOptions& options) {
  HistoryChecker checker{options};
  ReadOutcome read = read_history_file(path, [&](const Event& event) { checker.observe(event); });
  CheckOutcome outcome;
  outcome.error = std::move(read.error);
  outcome.verdict = checker.finish(path, read.summary);
  return outcome;
}

CheckOutcome check_history_text(std::string_view text, std::string_view name, const CheckOptions& options) {
  HistoryChecker checker{options};
  ReadOutcome read = read_history_text(text, name, [&](const Event& event) { checker.observe(event); });
  CheckOutcome outcome;
  outcome.error = std::move(read.error);
  outcome.verdict = checker.finish(std::string{name}, read.summary);
  return outcome;
}

}  // namespace locksim::checker
