#include "checker/lease_tracker.h"

#include <algorithm>
#include <limits>
#include <set>

namespace locksim::checker {

void LeaseTracker::advance_to(std::int64_t time_ns, std::vector<QuorumChange>& changes) {
  while (!pending_ends_.empty() && pending_ends_.top().end_ns <= time_ns) {
    const PendingEnd& end = pending_ends_.top();
    if (pending_by_sequence_.erase(end.sequence) == 0) {
      pending_ends_.pop();  // a lease.adopt took it: it is promised elsewhere now
      continue;
    }
    QuorumChange cause;
    cause.time_ns = end.end_ns;
    cause.instance = end.instance;
    cause.token = end.token;
    count(end.instance, end.lock, end.owner, -1, cause, changes);
    pending_ends_.pop();
  }
}

void LeaseTracker::observe(const Event& event, std::vector<QuorumChange>& changes) {
  switch (event.kind) {
    case EventKind::kLeaseGrant: begin_promise(event, changes); break;
    case EventKind::kLeaseRenew: renew_promise(event, changes); break;
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseRelease: end_promise(event, changes); break;
    case EventKind::kCrash: crash_instance(event, changes); break;
    case EventKind::kLeaseLost: lose_promise(event, changes); break;
    case EventKind::kLeaseAdopt: adopt_promise(event, changes); break;
    default: break;
  }
}

void LeaseTracker::for_each_owner(
    std::string_view lock, const std::function<void(const std::string& owner, const OwnerStanding&)>& visit) const {
  const OwnersOfLock* owners = owners_by_lock_.find(lock);
  if (owners == nullptr) {
    return;
  }
  for (const auto& [owner, promises] : *owners) {
    if (promises.promises_by_instance.empty()) {
      continue;  // kept for reuse: it has no running promise
    }
    OwnerStanding standing;
    standing.instances_promising = static_cast<int>(promises.promises_by_instance.size());
    standing.has_quorum = promises.has_quorum;
    bool expires = true;
    bool found_running = false;
    std::int64_t lease_ns_max = 0;
    for (const auto& [instance, unused_count] : promises.promises_by_instance) {
      const auto by_instance = promises_.find(instance);
      if (by_instance == promises_.end()) {
        continue;  // only lost promises remain there: they wait in pending_ends_
      }
      const std::vector<Promise>* by_lock = by_instance->second.find(lock);
      if (by_lock == nullptr) {
        continue;
      }
      for (const Promise& promise : *by_lock) {
        if (promise.owner != owner) {
          continue;
        }
        found_running = true;
        expires = expires && promise.lease_ns.has_value();
        lease_ns_max = std::max(lease_ns_max, promise.lease_ns.value_or(0));
        if (standing.first_grant_index < 0 || promise.grant_index < standing.first_grant_index) {
          standing.first_grant_index = promise.grant_index;
          standing.first_grant_time_ns = promise.grant_time_ns;
        }
      }
    }
    if (expires && found_running) {
      standing.lease_ns_max = lease_ns_max;
    }
    visit(owner, standing);
  }
}

namespace {

std::optional<std::int64_t> expiry_of(const Event& event) {
  // 0 means "no expiry" too: a recorder for `lease: none` may write 0.
  if (!event.lease_ns || *event.lease_ns == 0) {
    return std::nullopt;
  }
  return event.lease_ns;
}

QuorumChange cause_of(const Event& event) {
  QuorumChange cause;
  cause.time_ns = event.time_ns;
  cause.event_index = event.index;
  cause.instance = std::string{event.process};
  cause.token = Token::of(event);
  return cause;
}

}  // namespace

void LeaseTracker::begin_promise(const Event& event, std::vector<QuorumChange>& changes, bool may_regain) {
  Promise promise;
  promise.owner = std::string{event.owner};
  promise.token = Token::of(event);
  promise.grant_index = event.index;
  promise.grant_time_ns = event.time_ns;
  promise.last_renewal_ns = event.time_ns;
  promise.lease_ns = expiry_of(event);
  promises_at_or_new(event.process, event.lock).push_back(std::move(promise));
  count(event.process, event.lock, event.owner, +1, cause_of(event), changes);
  if (may_regain) {
    regain_if_new_token(event, changes);
  }
}

void LeaseTracker::regain_if_new_token(const Event& event, std::vector<QuorumChange>& changes) {
  OwnersOfLock* owners = owners_by_lock_.find(event.lock);
  if (owners == nullptr) {
    return;
  }
  const auto promises = owners->find(event.owner);
  if (promises == owners->end() || !promises->second.has_quorum) {
    return;
  }
  // A gain this event made already carries its token, so this compares equal.
  const Token token = Token::of(event);
  if (promises->second.gained_token == token || instances_promising(event.lock, event.owner, token) < quorum_) {
    return;
  }
  promises->second.gained_token = token;
  QuorumChange change = cause_of(event);
  change.direction = QuorumChange::Direction::kRegained;
  change.lock = std::string{event.lock};
  change.owner = std::string{event.owner};
  changes.push_back(std::move(change));
}

int LeaseTracker::instances_promising(std::string_view lock, std::string_view owner, const Token& token) const {
  std::set<std::string_view> instances;
  for (const auto& [instance, locks] : promises_) {
    const std::vector<Promise>* by_lock = locks.find(lock);
    if (by_lock == nullptr) {
      continue;
    }
    for (const Promise& promise : *by_lock) {
      if (promise.owner == owner && promise.token == token) {
        instances.insert(instance);
      }
    }
  }
  for (const auto& [sequence, end] : pending_by_sequence_) {
    if (end.lock == lock && end.owner == owner && end.token == token) {
      instances.insert(end.instance);
    }
  }
  return static_cast<int>(instances.size());
}

void LeaseTracker::renew_promise(const Event& event, std::vector<QuorumChange>& changes) {
  std::vector<Promise>* promises = promises_at(event.process, event.lock);
  Promise* promise = promises == nullptr ? nullptr : find_promise(*promises, event);
  if (promise == nullptr) {
    if (revive_pending_of_crashed(event)) {
      return;  // restarted with the lease, the instance extended it
    }
    // The instance extended a lease it has no record of granting (the history
    // began mid-lease, or the instance revived a key): from here it promises it.
    begin_promise(event, changes);
    return;
  }
  promise->last_renewal_ns = event.time_ns;
  promise->lease_ns = expiry_of(event);
}

LeaseTracker::Promise* LeaseTracker::match_ending_promise(const Event& event) {
  last_matched_.reset();
  std::vector<Promise>* promises = promises_at(event.process, event.lock);
  Promise* promise = promises == nullptr ? nullptr : find_promise(*promises, event);
  if (promise != nullptr) {
    last_matched_ = MatchedPromise{promise->grant_index, promise->grant_time_ns, promise->token};
  }
  return promise;
}

void LeaseTracker::end_promise(const Event& event, std::vector<QuorumChange>& changes) {
  Promise* promise = match_ending_promise(event);
  if (promise == nullptr) {
    end_pending_of_crashed(event, changes);
    return;
  }
  std::vector<Promise>* promises = promises_at(event.process, event.lock);
  erase_promise(event.process, event.lock, static_cast<std::size_t>(promise - promises->data()));
  count(event.process, event.lock, event.owner, -1, cause_of(event), changes);
}

void LeaseTracker::lose_promise(const Event& event, std::vector<QuorumChange>& changes) {
  Promise* promise = match_ending_promise(event);
  if (promise == nullptr) {
    return;  // not running here (a crashed instance's lease waits for its deadline already)
  }
  std::vector<Promise>* promises = promises_at(event.process, event.lock);
  pend_promise(event.process, event.lock, static_cast<std::size_t>(promise - promises->data()), event,
               /*while_down=*/false, changes);
}

void LeaseTracker::crash_instance(const Event& event, std::vector<QuorumChange>& changes) {
  const auto by_instance = promises_.find(event.process);
  if (by_instance == promises_.end()) {
    return;  // a worker, or an instance that never granted
  }
  // In lock-name order: the pending ends' order among equal deadlines reaches the verdict.
  for (const std::string& lock : by_instance->second.sorted_names()) {
    std::vector<Promise>* promises = promises_at(event.process, lock);
    while (!promises->empty()) {
      pend_promise(event.process, lock, 0, event, /*while_down=*/true, changes);
    }
  }
}

void LeaseTracker::pend_promise(std::string_view instance, std::string_view lock, std::size_t position,
                                const Event& cause, bool while_down, std::vector<QuorumChange>& changes) {
  const Promise& promise = (*promises_at(instance, lock))[position];
  PendingEnd end;
  // No expiry: promised until the history ends, which no event reaches.
  end.end_ns = std::numeric_limits<std::int64_t>::max();
  if (promise.lease_ns && __builtin_add_overflow(promise.last_renewal_ns, *promise.lease_ns, &end.end_ns)) {
    end.end_ns = std::numeric_limits<std::int64_t>::max();  // saturate: promised past any event
  }
  end.sequence = next_sequence_++;
  end.instance = std::string{instance};
  end.lock = std::string{lock};
  end.owner = promise.owner;
  end.token = promise.token;
  end.lease_ns = promise.lease_ns;
  end.grant_index = promise.grant_index;
  end.grant_time_ns = promise.grant_time_ns;
  end.while_down = while_down;
  // The instance forgot the lease (or is down), so later events at it name it
  // no longer as running: it leaves the running set, but its promise still
  // counts until end_ns.
  erase_promise(instance, lock, position);
  if (end.end_ns <= cause.time_ns) {
    count(end.instance, end.lock, end.owner, -1, cause_of(cause), changes);
    return;
  }
  pending_by_sequence_.emplace(end.sequence, end);
  pending_ends_.push(std::move(end));
}

std::map<std::uint64_t, LeaseTracker::PendingEnd>::iterator LeaseTracker::find_pending_of_crashed(
    const Event& event) {
  return std::find_if(pending_by_sequence_.begin(), pending_by_sequence_.end(), [&event](const auto& pending) {
    const PendingEnd& end = pending.second;
    return end.while_down && end.instance == event.process && end.lock == event.lock && end.owner == event.owner &&
           end.token.matches(event);
  });
}

bool LeaseTracker::end_pending_of_crashed(const Event& event, std::vector<QuorumChange>& changes) {
  const auto pending = find_pending_of_crashed(event);
  if (pending == pending_by_sequence_.end()) {
    return false;
  }
  last_matched_ = MatchedPromise{pending->second.grant_index, pending->second.grant_time_ns, pending->second.token};
  const std::string owner = pending->second.owner;
  pending_by_sequence_.erase(pending);  // its entry in pending_ends_ is skipped
  count(event.process, event.lock, owner, -1, cause_of(event), changes);
  return true;
}

bool LeaseTracker::revive_pending_of_crashed(const Event& event) {
  const auto pending = find_pending_of_crashed(event);
  if (pending == pending_by_sequence_.end()) {
    return false;
  }
  // Still counted at its instance: it runs again there, no loss and no gain.
  Promise promise;
  promise.owner = pending->second.owner;
  promise.token = pending->second.token;
  promise.grant_index = pending->second.grant_index;
  promise.grant_time_ns = pending->second.grant_time_ns;
  promise.last_renewal_ns = event.time_ns;
  promise.lease_ns = expiry_of(event);
  pending_by_sequence_.erase(pending);  // its entry in pending_ends_ is skipped
  promises_at_or_new(event.process, event.lock).push_back(std::move(promise));
  return true;
}

void LeaseTracker::adopt_promise(const Event& event, std::vector<QuorumChange>& changes) {
  // An adopt at the instance that already promises the lease restarts its deadline.
  if (std::vector<Promise>* own = promises_at(event.process, event.lock)) {
    if (Promise* promise = find_promise(*own, event)) {
      promise->last_renewal_ns = event.time_ns;
      if (event.lease_ns) {
        promise->lease_ns = expiry_of(event);
      }
      return;
    }
  }
  std::optional<AdoptedPromise> adopted = take_adopted(event);
  if (!adopted) {
    begin_promise(event, changes, /*may_regain=*/false);
    return;
  }
  // The same lease, now promised by the adopter: its grant stays, its
  // deadline restarts (an adopt without lease_ns keeps the lease's length).
  Promise promise = std::move(adopted->promise);
  promise.last_renewal_ns = event.time_ns;
  if (event.lease_ns) {
    promise.lease_ns = expiry_of(event);
  }
  const std::string owner = promise.owner;
  promises_at_or_new(event.process, event.lock).push_back(std::move(promise));
  // Counted at the adopter before it is uncounted at its former instance, so
  // the owner never drops below its quorum in between: no loss, no new gain.
  count(event.process, event.lock, owner, +1, cause_of(event), changes);
  count(adopted->instance, event.lock, owner, -1, cause_of(event), changes);
}

std::optional<LeaseTracker::AdoptedPromise> LeaseTracker::take_adopted(const Event& event) {
  for (auto& [instance, locks] : promises_) {
    if (instance == event.process) {
      continue;
    }
    std::vector<Promise>* by_lock = locks.find(event.lock);
    if (by_lock == nullptr) {
      continue;
    }
    if (Promise* promise = find_promise(*by_lock, event)) {
      AdoptedPromise adopted{instance, std::move(*promise)};
      erase_promise(adopted.instance, event.lock, static_cast<std::size_t>(promise - by_lock->data()));
      return adopted;
    }
  }
  for (auto pending = pending_by_sequence_.begin(); pending != pending_by_sequence_.end(); ++pending) {
    const PendingEnd& end = pending->second;
    if (end.lock != event.lock || end.owner != event.owner || !end.token.matches(event)) {
      continue;
    }
    Promise promise;
    promise.owner = end.owner;
    promise.token = end.token;
    promise.grant_index = end.grant_index;
    promise.grant_time_ns = end.grant_time_ns;
    promise.lease_ns = end.lease_ns;
    AdoptedPromise adopted{end.instance, std::move(promise)};
    pending_by_sequence_.erase(pending);  // its entry in pending_ends_ is skipped
    return adopted;
  }
  return std::nullopt;
}

void LeaseTracker::count(std::string_view instance, std::string_view lock, std::string_view owner, int delta,
                         const QuorumChange& cause, std::vector<QuorumChange>& changes) {
  OwnersOfLock* owners = owners_by_lock_.find(lock);
  if (owners == nullptr) {
    if (delta < 0) {
      return;
    }
    owners = &owners_by_lock_[lock];
  }
  auto promises = owners->find(owner);
  if (promises == owners->end()) {
    if (delta < 0) {
      return;
    }
    promises = owners->emplace(std::string{owner}, OwnerPromises{}).first;
  }
  auto& by_instance = promises->second.promises_by_instance;
  auto slot = std::find_if(by_instance.begin(), by_instance.end(),
                           [&](const InstancePromises& promising) { return promising.instance == instance; });
  if (slot == by_instance.end()) {
    if (delta < 0) {
      return;
    }
    slot = by_instance.insert(by_instance.end(), InstancePromises{std::string{instance}, 0});
  }
  slot->count += delta;
  if (slot->count <= 0) {
    by_instance.erase(slot);
  }
  const bool had_quorum = promises->second.has_quorum;
  const bool has_quorum = static_cast<int>(by_instance.size()) >= quorum_;
  promises->second.has_quorum = has_quorum;
  if (has_quorum && !had_quorum) {
    promises->second.gained_token = cause.token;
  }
  if (had_quorum != has_quorum) {
    QuorumChange change = cause;
    change.direction = has_quorum ? QuorumChange::Direction::kGained : QuorumChange::Direction::kLost;
    change.lock = std::string{lock};
    change.owner = std::string{owner};
    changes.push_back(std::move(change));
  }
}

std::vector<LeaseTracker::Promise>* LeaseTracker::promises_at(std::string_view instance, std::string_view lock) {
  const auto by_instance = promises_.find(instance);
  if (by_instance == promises_.end()) {
    return nullptr;
  }
  return by_instance->second.find(lock);
}

std::vector<LeaseTracker::Promise>& LeaseTracker::promises_at_or_new(std::string_view instance,
                                                                     std::string_view lock) {
  auto by_instance = promises_.find(instance);
  if (by_instance == promises_.end()) {
    by_instance = promises_.emplace(std::string{instance}, decltype(promises_)::mapped_type{}).first;
  }
  return by_instance->second[lock];
}

LeaseTracker::Promise* LeaseTracker::find_promise(std::vector<Promise>& promises, const Event& event) {
  // The newest matching promise: an instance names the lease it holds now.
  for (auto promise = promises.rbegin(); promise != promises.rend(); ++promise) {
    if (promise->owner == event.owner && promise->token.matches(event)) {
      return &*promise;
    }
  }
  return nullptr;
}

void LeaseTracker::erase_promise(std::string_view instance, std::string_view lock, std::size_t position) {
  const auto by_instance = promises_.find(instance);
  std::vector<Promise>* by_lock = by_instance->second.find(lock);
  // An emptied list stays, with its memory, for the lock's next lease.
  by_lock->erase(by_lock->begin() + static_cast<std::ptrdiff_t>(position));
}

}  // namespace locksim::checker
