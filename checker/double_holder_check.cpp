#include "checker/double_holder_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace locksim::checker {
namespace {

// The root of `index` in a union-find forest kept in a map (hold.begin indices are sparse).
std::int64_t root_of(std::map<std::int64_t, std::int64_t>& parent, std::int64_t index) {
  auto found = parent.try_emplace(index, index).first;
  while (found->second != found->first) {
    const auto up = parent.find(found->second);
    found->second = up->second;  // halve the path
    found = parent.find(found->second);
  }
  return found->first;
}

}  // namespace

void DoubleHolderCheck::observe(const Event& event, const NameIds& names) {
  last_time_ns_ = event.time_ns;
  switch (event.kind) {
    case EventKind::kAcquireInvoke: {
      Calls& calls = calls_[event.process_id];
      // An invoke without a lock matches no acquire.ok (they all name one).
      if (event.lock_id != kNoName) calls.acquiring[event.lock_id] = event.time_ns;
      break;
    }
    case EventKind::kAcquireOk: {
      Calls& calls = calls_[event.process_id];
      const std::int64_t* invoked = calls.acquiring.find(event.lock_id);
      // For the hold it begins next: an acquisition shows nothing about a hold still open.
      if (invoked != nullptr && event.lease_ns.value_or(0) > 0) calls.lease_end[event.lock_id] = *invoked + *event.lease_ns;
      break;
    }
    case EventKind::kRenewInvoke: {
      Calls& calls = calls_[event.process_id];
      calls.renewing_lock = event.lock_id;
      calls.renew_invoked_ns = event.time_ns;
      break;
    }
    case EventKind::kRenewOk: {
      const Calls* calls = calls_.find(event.process_id);
      if (calls != nullptr && calls->renewing_lock != kNoName && event.lease_ns.value_or(0) > 0) {
        const NameId lock = calls->renewing_lock;
        renewed(event, lock, names.name(lock), calls->renew_invoked_ns + *event.lease_ns);
      }
      break;
    }
    case EventKind::kHoldBegin: begin_hold(event); break;
    case EventKind::kHoldEnd:
      if (Holds* holds = open_holds_.find(event.lock_id)) end_hold(*holds, event.process, event, true);
      break;
    case EventKind::kCrash:
      // A crash ends every hold of the crashed worker (there are few locks).
      for (const NameId lock : open_holds_.ids_in_name_order(names)) {
        end_hold(*open_holds_.find(lock), event.process, event, false);
      }
      if (Calls* calls = calls_.find(event.process_id)) *calls = Calls{};  // restarted, it calls afresh
      break;
    default: break;
  }
}

void DoubleHolderCheck::begin_hold(const Event& event) {
  Holds& holds = open_holds_[event.lock_id];
  end_hold(holds, event.process, event, false);  // a second hold.begin replaces the first
  const Suspect begun{event.index, event.time_ns, std::string{event.process}, Token::of(event)};
  for (auto& [other_worker, other] : holds) {
    if (other.lease_end_ns && *other.lease_end_ns <= event.time_ns) {
      other.suspects.push_back(begun);
    } else {
      report(other, other_worker, begun, event.lock, event.index);
    }
  }
  Hold& hold = holds[std::string{event.process}];
  hold = Hold{event.index, event.time_ns, Token::of(event), std::nullopt, {}};
  if (Calls* calls = calls_.find(event.process_id)) {
    if (const std::int64_t* lease_end = calls->lease_end.find(event.lock_id)) hold.lease_end_ns = *lease_end;
  }
}

void DoubleHolderCheck::renewed(const Event& event, NameId lock, std::string_view lock_name,
                                std::int64_t lease_end_ns) {
  calls_[event.process_id].lease_end[lock] = lease_end_ns;
  Holds* holds = open_holds_.find(lock);
  if (holds == nullptr) return;
  const auto hold = holds->find(event.process);
  if (hold == holds->end()) return;
  hold->second.lease_end_ns = lease_end_ns;
  // The worker renewed on: every hold.begin before its new end overlapped it.
  std::erase_if(hold->second.suspects, [&](const Suspect& suspect) {
    if (suspect.time_ns >= lease_end_ns) return false;
    report(hold->second, event.process, suspect, lock_name, event.index);
    return true;
  });
}

void DoubleHolderCheck::end_hold(Holds& holds, std::string_view worker, const Event& event, bool held_on) {
  const auto hold = holds.find(worker);
  if (hold == holds.end()) return;
  if (held_on) {
    for (const Suspect& suspect : hold->second.suspects) {
      report(hold->second, worker, suspect, event.lock, event.index);
    }
  } else if (hold->second.lease_end_ns && *hold->second.lease_end_ns <= event.time_ns) {
    ++hold_ends_from_lease_;
  } else if (event.kind == EventKind::kHoldBegin) {
    joined_.emplace_back(hold->second.event_index, event.index);  // still on when replaced
  }
  holds.erase(hold);
}

void DoubleHolderCheck::report(const Hold& held, std::string_view held_by, const Suspect& later,
                               std::string_view lock, std::int64_t detected_at) {
  violations_.push_back(make_violation(
      ViolationKind::kDoubleHolder, {held.event_index, later.event_index}, later.time_ns, detected_at,
      fmt::format("{} began holding lock {}{} while {} had held it since {}{}", later.worker, lock,
                  token_suffix(later.token), held_by, format_seconds(held.time_ns), token_suffix(held.token))));
  joined_.emplace_back(held.event_index, later.event_index);
}

std::vector<Violation> DoubleHolderCheck::finish(const NameIds& names) {
  for (const NameId lock : open_holds_.ids_in_name_order(names)) {
    for (const auto& [worker, hold] : *open_holds_.find(lock)) {
      if (hold.lease_end_ns && *hold.lease_end_ns < last_time_ns_) ++hold_ends_from_lease_;
    }
  }
  open_holds_ = {};
  // Incidents: holds linked by overlaps (or by a replacement while on) form
  // one busy period; its incident is the detected_at of its first violation.
  std::map<std::int64_t, std::int64_t> parent;
  for (const auto& [first, second] : joined_) {
    const std::int64_t a = root_of(parent, first);
    const std::int64_t b = root_of(parent, second);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::map<std::int64_t, std::int64_t> first_detected;  // root -> earliest detected_at
  for (const Violation& violation : violations_) {
    const std::int64_t root = root_of(parent, violation.events.front());
    const auto [found, added] = first_detected.try_emplace(root, violation.detected_at);
    if (!added) found->second = std::min(found->second, violation.detected_at);
  }
  for (Violation& violation : violations_) violation.incident = first_detected[root_of(parent, violation.events.front())];
  return std::move(violations_);
}

}  // namespace locksim::checker
