#include "checker/token_order_check.h"

#include <fmt/format.h>

namespace locksim::checker {
namespace {

std::string token_key(const Event& event) {
  return event.token ? std::to_string(*event.token) : std::string{event.token_text};
}

}  // namespace

void TokenOrderCheck::observe(const Event& event, const NameIds& names, std::vector<Violation>& violations) {
  if (event.kind == EventKind::kAcquireInvoke) {
    observe_invoke(event);
    return;
  }
  if (!event.token && event.token_text.empty()) {
    return;  // nothing to order
  }
  switch (event.kind) {
    case EventKind::kLeaseGrant: observe_grant(event, names, violations); break;
    case EventKind::kAcquireOk: observe_acquired(event, names, violations); break;
    default: break;
  }
}

TokenOrderCheck::Counter& TokenOrderCheck::counter_of(const Event& grant) {
  return counter_per_instance_ ? instance_counters_[grant.process_id][grant.lock_id] : service_counters_[grant.lock_id];
}

void TokenOrderCheck::observe_grant(const Event& event, const NameIds& names, std::vector<Violation>& violations) {
  Counter& counter = counter_of(event);
  const Grant grant{event.owner_id, event.index, event.time_ns, event.process_id};
  std::optional<Grant> earlier;  // the grant this one should have come after
  if (event.token) {
    const bool lower = counter.highest && *event.token < *counter.highest;
    const bool repeated = counter.highest && *event.token == *counter.highest && counter.highest_grant.owner != event.owner_id;
    if (lower || repeated) {
      earlier = counter.highest_grant;
    } else if (!counter.highest || *event.token > *counter.highest) {
      counter.highest = *event.token;
      counter.highest_grant = grant;
      counter.incident.reset();  // running above every earlier token again
    }
  } else {
    const auto [first, inserted] = counter.texts.emplace(std::string{event.token_text}, grant);
    if (!inserted && first->second.owner != event.owner_id) {
      earlier = first->second;
    }
  }
  if (!earlier) {
    return;
  }
  const std::string what =
      fmt::format("{} granted lock {} to {} with token {}, after {} granted token {} to {} at {}", event.process,
                  event.lock, event.owner, token_key(event),
                  earlier->by == event.process_id ? std::string_view{"it"} : names.name(earlier->by),
                  event.token ? std::to_string(*counter.highest) : std::string{event.token_text},
                  names.name(earlier->owner),
                  format_seconds(earlier->time_ns));
  Violation& violation = violations.emplace_back(make_violation(
      ViolationKind::kTokenOrder, {earlier->event_index, event.index}, event.time_ns, event.index, what));
  if (event.token) {
    violation.incident = counter.incident.value_or(event.index);
    counter.incident = violation.incident;
  }
  found_white_box_.emplace(std::string{event.lock}, std::string{event.owner}, token_key(event));
}

std::optional<TokenOrderCheck::Completed> TokenOrderCheck::highest_not_of(const LockAcquisitions& lock,
                                                                          NameId owner) {
  if (lock.highest && lock.highest->grant.owner != owner) {
    return lock.highest;
  }
  return lock.highest_other_owner;
}

void TokenOrderCheck::observe_invoke(const Event& event) {
  if (event.lock_id == kNoName) {
    return;  // every acquire.ok names its lock: none would look this invoke up
  }
  const LockAcquisitions* lock = acquisitions_.find(event.lock_id);
  open_[event.process_id][event.lock_id].highest_before =
      lock == nullptr ? std::nullopt : highest_not_of(*lock, event.process_id);
}

void TokenOrderCheck::observe_acquired(const Event& event, const NameIds& names,
                                       std::vector<Violation>& violations) {
  LockAcquisitions& lock = acquisitions_[event.lock_id];
  const Grant grant{event.process_id, event.index, event.time_ns, kNoName};
  std::optional<Grant> earlier;
  std::string why;
  if (event.token) {
    const auto [first, inserted] = lock.numbers.emplace(*event.token, grant);
    const ById<Invocation>* worker = open_.find(event.process_id);
    const Invocation* open = worker == nullptr ? nullptr : worker->find(event.lock_id);
    const std::optional<Completed> before = open == nullptr ? std::nullopt : open->highest_before;
    if (!inserted && first->second.owner != event.process_id) {
      earlier = first->second;
      why = fmt::format("the token {} already went to {} at {}", *event.token, names.name(earlier->owner),
                        format_seconds(earlier->time_ns));
    } else if (before && *event.token <= before->token) {
      earlier = before->grant;
      why = fmt::format("lower than token {}, which {} had acquired at {}, before this acquisition began",
                        before->token, names.name(earlier->owner), format_seconds(earlier->time_ns));
    }
    // Keep the two highest by distinct owners.
    const Completed completed{*event.token, grant};
    if (!lock.highest || *event.token > lock.highest->token) {
      if (lock.highest && lock.highest->grant.owner != event.process_id) lock.highest_other_owner = lock.highest;
      lock.highest = completed;
    } else if (lock.highest->grant.owner != event.process_id &&
               (!lock.highest_other_owner || *event.token > lock.highest_other_owner->token)) {
      lock.highest_other_owner = completed;
    }
  } else {
    const auto [first, inserted] = lock.texts.emplace(std::string{event.token_text}, grant);
    if (!inserted && first->second.owner != event.process_id) {
      earlier = first->second;
      why = fmt::format("the token {} already went to {} at {}", event.token_text, names.name(earlier->owner),
                        format_seconds(earlier->time_ns));
    }
  }
  if (!earlier || found_white_box_.contains({std::string{event.lock}, std::string{event.process}, token_key(event)})) {
    return;
  }
  violations.push_back(make_violation(ViolationKind::kTokenOrder, {earlier->event_index, event.index}, event.time_ns,
                                      event.index,
                                      fmt::format("{} acquired lock {} with token {}: {}", event.process, event.lock,
                                                  token_key(event), why)));
}

}  // namespace locksim::checker
