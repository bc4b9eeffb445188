#include "checker/stuck_lock_check.h"

#include <limits>

#include <fmt/format.h>

namespace locksim::checker {

void StuckLockCheck::observe(const Event& event, const LeaseTracker& leases, const NameIds& names,
                             std::vector<Violation>& violations) {
  switch (event.kind) {
    case EventKind::kCrash:
      crash_by_worker_[event.process_id] = Moment{event.index, event.time_ns};
      break;
    case EventKind::kHoldBegin:
    case EventKind::kAcquireOk: active_again(event.process_id, event); break;
    case EventKind::kLeaseGrant: active_again(event.owner_id, event); break;
    case EventKind::kHoldEnd:
      hold_of(event.process_id, event.lock_id).ended = Moment{event.index, event.time_ns};
      break;
    case EventKind::kAcquireFail:
      judge_failed_acquire(event, leases, names, violations);
      break;
    default:
      break;
  }
}

StuckLockCheck::HoldRecord& StuckLockCheck::hold_of(NameId worker, NameId lock) { return holds_[worker][lock]; }

StuckLockCheck::HoldRecord* StuckLockCheck::find_hold(NameId worker, NameId lock) {
  ById<HoldRecord>* by_lock = holds_.find(worker);
  return by_lock == nullptr ? nullptr : by_lock->find(lock);
}

void StuckLockCheck::active_again(NameId owner, const Event& event) {
  HoldRecord& hold = hold_of(owner, event.lock_id);
  hold.began = Moment{event.index, event.time_ns};
  hold.ended.reset();
}

std::optional<std::pair<StuckLockCheck::Moment, std::string_view>> StuckLockCheck::useless_since(
    NameId owner, const HoldRecord* hold) const {
  std::optional<std::pair<Moment, std::string_view>> since;
  if (hold != nullptr && hold->ended) {
    since = {*hold->ended, "ended its hold"};
  }
  const Moment* crash = crash_by_worker_.find(owner);
  const bool crashed_since_hold =
      crash != nullptr && (hold == nullptr || !hold->began || crash->event_index > hold->began->event_index);
  if (crashed_since_hold && (!since || crash->event_index < since->first.event_index)) {
    since = {*crash, "crashed"};
  }
  return since;
}

std::int64_t StuckLockCheck::threshold_ns(const OwnerStanding& standing) const {
  if (stuck_after_ns_) {
    return *stuck_after_ns_;
  }
  if (!standing.lease_ns_max) {
    return kStuckAfterWithoutLeaseNs;
  }
  std::int64_t threshold = 0;
  if (__builtin_mul_overflow(*standing.lease_ns_max, kStuckAfterLeases, &threshold)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return threshold;
}

void StuckLockCheck::judge_failed_acquire(const Event& event, const LeaseTracker& leases, const NameIds& names,
                                          std::vector<Violation>& violations) {
  leases.for_each_owner(event.lock_id, [&](NameId owner, const OwnerStanding& standing) {
    if (owner == event.process_id) {
      return;
    }
    HoldRecord* record = find_hold(owner, event.lock_id);
    const auto since = useless_since(owner, record);
    if (!since) {
      return;
    }
    const auto& [moment, how] = *since;
    const std::int64_t threshold = threshold_ns(standing);
    if (event.time_ns - moment.time_ns <= threshold) {
      return;
    }
    if (record == nullptr) {
      record = &hold_of(owner, event.lock_id);
    }
    if (record->reported_useless_index == moment.event_index) {
      return;
    }
    record->reported_useless_index = moment.event_index;
    violations.push_back(make_violation(
        ViolationKind::kStuckLock, {standing.first_grant_index, moment.event_index, event.index}, event.time_ns,
        event.index,
        fmt::format("lock {} is still promised to {}, which {} at {}, and {}'s acquire failed (stuck after {:.3f}s)",
                    event.lock, names.name(owner), how, format_seconds(moment.time_ns), event.process,
                    static_cast<double>(threshold) / 1e9)));
  });
}

}  // namespace locksim::checker
