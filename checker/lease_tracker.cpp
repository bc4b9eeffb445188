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

void LeaseTracker::observe(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes) {
  switch (event.kind) {
    case EventKind::kLeaseGrant: begin_promise(event, names, changes); break;
    case EventKind::kLeaseRenew: renew_promise(event, names, changes); break;
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseRelease: end_promise(event, changes); break;
    case EventKind::kCrash: crash_instance(event, names, changes); break;
    case EventKind::kLeaseLost: lose_promise(event, changes); break;
    case EventKind::kLeaseAdopt: adopt_promise(event, names, changes); break;
    default: break;
  }
}

void LeaseTracker::for_each_owner(NameId lock,
                                  const std::function<void(NameId owner, const OwnerStanding&)>& visit) const {
  const OwnersOfLock* owners = owners_by_lock_.find(lock);
  if (owners == nullptr) {
    return;
  }
  for (const NameId owner : owners->in_name_order) {
    const OwnerPromises& promises = *owners->by_owner.find(owner);
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
      const auto* by_instance = promises_.find(instance);
      if (by_instance == nullptr) {
        continue;  // only lost promises remain there: they wait in pending_ends_
      }
      const std::vector<Promise>* by_lock = by_instance->find(lock);
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
  cause.instance = event.process_id;
  cause.token = Token::of(event);
  return cause;
}

}  // namespace

void LeaseTracker::begin_promise(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes,
                                 bool may_regain) {
  Promise promise;
  promise.owner = event.owner_id;
  promise.token = Token::of(event);
  promise.grant_index = event.index;
  promise.grant_time_ns = event.time_ns;
  promise.last_renewal_ns = event.time_ns;
  promise.lease_ns = expiry_of(event);
  promises_at_or_new(event.process_id, event.lock_id).push_back(std::move(promise));
  note_owner(event.lock_id, event.owner_id, names);
  count(event.process_id, event.lock_id, event.owner_id, +1, cause_of(event), changes);
  if (may_regain) {
    regain_if_new_token(event, names, changes);
  }
}

void LeaseTracker::note_owner(NameId lock, NameId owner, const NameIds& names) {
  OwnersOfLock& owners = owners_by_lock_[lock];
  if (owners.by_owner.find(owner) != nullptr) {
    return;
  }
  owners.by_owner[owner];
  const auto after = std::upper_bound(owners.in_name_order.begin(), owners.in_name_order.end(), names.name(owner),
                                      [&names](std::string_view name, NameId other) { return name < names.name(other); });
  owners.in_name_order.insert(after, owner);
}

void LeaseTracker::regain_if_new_token(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes) {
  OwnersOfLock* owners = owners_by_lock_.find(event.lock_id);
  if (owners == nullptr) {
    return;
  }
  OwnerPromises* promises = owners->by_owner.find(event.owner_id);
  if (promises == nullptr || !promises->has_quorum) {
    return;
  }
  // A gain this event made already carries its token, so this compares equal.
  const Token token = Token::of(event);
  if (promises->gained_token == token ||
      instances_promising(event.lock_id, event.owner_id, token, names) < quorum_) {
    return;
  }
  promises->gained_token = token;
  QuorumChange change = cause_of(event);
  change.direction = QuorumChange::Direction::kRegained;
  change.lock = event.lock_id;
  change.owner = event.owner_id;
  changes.push_back(std::move(change));
}

int LeaseTracker::instances_promising(NameId lock, NameId owner, const Token& token, const NameIds& names) const {
  std::set<NameId> instances;
  for (const NameId instance : promises_.ids_in_name_order(names)) {
    const std::vector<Promise>* by_lock = promises_.find(instance)->find(lock);
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

void LeaseTracker::renew_promise(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes) {
  std::vector<Promise>* promises = promises_at(event.process_id, event.lock_id);
  Promise* promise = promises == nullptr ? nullptr : find_promise(*promises, event);
  if (promise == nullptr) {
    if (revive_pending_of_crashed(event)) {
      return;  // restarted with the lease, the instance extended it
    }
    // The instance extended a lease it has no record of granting (the history
    // began mid-lease, or the instance revived a key): from here it promises it.
    begin_promise(event, names, changes);
    return;
  }
  promise->last_renewal_ns = event.time_ns;
  promise->lease_ns = expiry_of(event);
}

LeaseTracker::Promise* LeaseTracker::match_ending_promise(const Event& event) {
  last_matched_.reset();
  std::vector<Promise>* promises = promises_at(event.process_id, event.lock_id);
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
  std::vector<Promise>* promises = promises_at(event.process_id, event.lock_id);
  erase_promise(event.process_id, event.lock_id, static_cast<std::size_t>(promise - promises->data()));
  count(event.process_id, event.lock_id, event.owner_id, -1, cause_of(event), changes);
}

void LeaseTracker::lose_promise(const Event& event, std::vector<QuorumChange>& changes) {
  Promise* promise = match_ending_promise(event);
  if (promise == nullptr) {
    return;  // not running here (a crashed instance's lease waits for its deadline already)
  }
  std::vector<Promise>* promises = promises_at(event.process_id, event.lock_id);
  pend_promise(event.process_id, event.lock_id, static_cast<std::size_t>(promise - promises->data()), event,
               /*while_down=*/false, changes);
}

void LeaseTracker::crash_instance(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes) {
  const auto* by_instance = promises_.find(event.process_id);
  if (by_instance == nullptr) {
    return;  // a worker, or an instance that never granted
  }
  // In lock-name order: the pending ends' order among equal deadlines reaches the verdict.
  for (const NameId lock : by_instance->ids_in_name_order(names)) {
    std::vector<Promise>* promises = promises_at(event.process_id, lock);
    while (!promises->empty()) {
      pend_promise(event.process_id, lock, 0, event, /*while_down=*/true, changes);
    }
  }
}

void LeaseTracker::pend_promise(NameId instance, NameId lock, std::size_t position, const Event& cause,
                                bool while_down, std::vector<QuorumChange>& changes) {
  const Promise& promise = (*promises_at(instance, lock))[position];
  PendingEnd end;
  // No expiry: promised until the history ends, which no event reaches.
  end.end_ns = std::numeric_limits<std::int64_t>::max();
  if (promise.lease_ns && __builtin_add_overflow(promise.last_renewal_ns, *promise.lease_ns, &end.end_ns)) {
    end.end_ns = std::numeric_limits<std::int64_t>::max();  // saturate: promised past any event
  }
  end.sequence = next_sequence_++;
  end.instance = instance;
  end.lock = lock;
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
    return end.while_down && end.instance == event.process_id && end.lock == event.lock_id &&
           end.owner == event.owner_id && end.token.matches(event);
  });
}

bool LeaseTracker::end_pending_of_crashed(const Event& event, std::vector<QuorumChange>& changes) {
  const auto pending = find_pending_of_crashed(event);
  if (pending == pending_by_sequence_.end()) {
    return false;
  }
  last_matched_ = MatchedPromise{pending->second.grant_index, pending->second.grant_time_ns, pending->second.token};
  const NameId owner = pending->second.owner;
  pending_by_sequence_.erase(pending);  // its entry in pending_ends_ is skipped
  count(event.process_id, event.lock_id, owner, -1, cause_of(event), changes);
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
  promises_at_or_new(event.process_id, event.lock_id).push_back(std::move(promise));
  return true;
}

void LeaseTracker::adopt_promise(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes) {
  // An adopt at the instance that already promises the lease restarts its deadline.
  if (std::vector<Promise>* own = promises_at(event.process_id, event.lock_id)) {
    if (Promise* promise = find_promise(*own, event)) {
      promise->last_renewal_ns = event.time_ns;
      if (event.lease_ns) {
        promise->lease_ns = expiry_of(event);
      }
      return;
    }
  }
  std::optional<AdoptedPromise> adopted = take_adopted(event, names);
  if (!adopted) {
    begin_promise(event, names, changes, /*may_regain=*/false);
    return;
  }
  // The same lease, now promised by the adopter: its grant stays, its
  // deadline restarts (an adopt without lease_ns keeps the lease's length).
  Promise promise = std::move(adopted->promise);
  promise.last_renewal_ns = event.time_ns;
  if (event.lease_ns) {
    promise.lease_ns = expiry_of(event);
  }
  const NameId owner = promise.owner;
  promises_at_or_new(event.process_id, event.lock_id).push_back(std::move(promise));
  // Counted at the adopter before it is uncounted at its former instance, so
  // the owner never drops below its quorum in between: no loss, no new gain.
  note_owner(event.lock_id, owner, names);
  count(event.process_id, event.lock_id, owner, +1, cause_of(event), changes);
  count(adopted->instance, event.lock_id, owner, -1, cause_of(event), changes);
}

std::optional<LeaseTracker::AdoptedPromise> LeaseTracker::take_adopted(const Event& event, const NameIds& names) {
  for (const NameId instance : promises_.ids_in_name_order(names)) {
    if (instance == event.process_id) {
      continue;
    }
    std::vector<Promise>* by_lock = promises_.find(instance)->find(event.lock_id);
    if (by_lock == nullptr) {
      continue;
    }
    if (Promise* promise = find_promise(*by_lock, event)) {
      AdoptedPromise adopted{instance, std::move(*promise)};
      erase_promise(adopted.instance, event.lock_id, static_cast<std::size_t>(promise - by_lock->data()));
      return adopted;
    }
  }
  for (auto pending = pending_by_sequence_.begin(); pending != pending_by_sequence_.end(); ++pending) {
    const PendingEnd& end = pending->second;
    if (end.lock != event.lock_id || end.owner != event.owner_id || !end.token.matches(event)) {
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

void LeaseTracker::count(NameId instance, NameId lock, NameId owner, int delta, const QuorumChange& cause,
                         std::vector<QuorumChange>& changes) {
  OwnersOfLock* owners = owners_by_lock_.find(lock);
  OwnerPromises* promises = owners == nullptr ? nullptr : owners->by_owner.find(owner);
  if (promises == nullptr) {
    return;  // a promise ending that never began here; a begun one has its standing (note_owner)
  }
  auto& by_instance = promises->promises_by_instance;
  auto slot = std::find_if(by_instance.begin(), by_instance.end(),
                           [&](const InstancePromises& promising) { return promising.instance == instance; });
  if (slot == by_instance.end()) {
    if (delta < 0) {
      return;
    }
    slot = by_instance.insert(by_instance.end(), InstancePromises{instance, 0});
  }
  slot->count += delta;
  if (slot->count <= 0) {
    by_instance.erase(slot);
  }
  const bool had_quorum = promises->has_quorum;
  const bool has_quorum = static_cast<int>(by_instance.size()) >= quorum_;
  promises->has_quorum = has_quorum;
  if (has_quorum && !had_quorum) {
    promises->gained_token = cause.token;
  }
  if (had_quorum != has_quorum) {
    QuorumChange change = cause;
    change.direction = has_quorum ? QuorumChange::Direction::kGained : QuorumChange::Direction::kLost;
    change.lock = lock;
    change.owner = owner;
    changes.push_back(std::move(change));
  }
}

std::vector<LeaseTracker::Promise>* LeaseTracker::promises_at(NameId instance, NameId lock) {
  auto* by_instance = promises_.find(instance);
  return by_instance == nullptr ? nullptr : by_instance->find(lock);
}

std::vector<LeaseTracker::Promise>& LeaseTracker::promises_at_or_new(NameId instance, NameId lock) {
  return promises_[instance][lock];
}

LeaseTracker::Promise* LeaseTracker::find_promise(std::vector<Promise>& promises, const Event& event) {
  // The newest matching promise: an instance names the lease it holds now.
  for (auto promise = promises.rbegin(); promise != promises.rend(); ++promise) {
    if (promise->owner == event.owner_id && promise->token.matches(event)) {
      return &*promise;
    }
  }
  return nullptr;
}

void LeaseTracker::erase_promise(NameId instance, NameId lock, std::size_t position) {
  std::vector<Promise>* by_lock = promises_at(instance, lock);
  // An emptied list stays, with its memory, for the lock's next lease.
  by_lock->erase(by_lock->begin() + static_cast<std::ptrdiff_t>(position));
}

}  // namespace locksim::checker
