#include "runner/oracle.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "runner/record_fields.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/worker_name.h"

namespace locksim::runner {

using vocabulary::EventKind;
namespace field = vocabulary::field;

namespace {

using checker::ViolationKind;

std::optional<sim::Duration> lease_length(std::span<const sim::Field> fields) {
  const std::optional<std::int64_t> lease_ns = integer_field(fields, field::kLeaseNs);
  if (!lease_ns || *lease_ns == 0) return std::nullopt;  // no expiry
  return sim::Duration::nanoseconds(*lease_ns);
}

std::int64_t token_of(std::span<const sim::Field> fields) { return integer_field(fields, field::kToken).value_or(0); }

}  // namespace

Oracle::Oracle(OracleSetup setup) : setup_{std::move(setup)} {
  if (setup_.quorum < 1) throw std::logic_error("the oracle needs a quorum of at least 1");
}

Oracle::OwnerState& Oracle::owner(std::string_view name) {
  auto found = owners_.find(name);
  if (found == owners_.end()) found = owners_.emplace(std::string{name}, OwnerState{}).first;
  return found->second;
}

void Oracle::observe(sim::Time now, std::string_view proc, EventKind event, std::span<const sim::Field> fields) {
  last_now_ = now;
  forget_due_promises(now);
  if (event == EventKind::kLeaseGrant) {
    acquiring(text_field(fields, field::kOwner));
    if (const auto token = integer_field(fields, field::kToken))
      granted_token(proc, text_field(fields, field::kOwner), *token);
    grant(now, proc,
          Promise{std::string{text_field(fields, field::kOwner)}, token_of(fields), now, lease_length(fields)});
  } else if (event == EventKind::kAcquireInvoke) {
    invoked_acquire(proc);
    owner(proc).acquire_invoked_at = now;
  } else if (event == EventKind::kAcquireOk) {
    acquiring(proc);
    if (const auto token = integer_field(fields, field::kToken)) acquired_token(proc, *token);
    // For the hold it begins next: an acquisition shows nothing about a hold still open.
    OwnerState& state = owner(proc);
    const std::optional<sim::Duration> length = lease_length(fields);
    state.next_lease_end = state.acquire_invoked_at && length ? std::optional{*state.acquire_invoked_at + *length}
                                                              : std::nullopt;
  } else if (event == EventKind::kRenewInvoke) {
    owner(proc).renew_invoked_at = now;
  } else if (event == EventKind::kRenewOk) {
    renewed(proc, owner(proc).renew_invoked_at, lease_length(fields));
  } else if (event == EventKind::kLeaseRenew) {
    renew(now, proc, text_field(fields, field::kOwner), token_of(fields), lease_length(fields));
  } else if (event == EventKind::kLeaseExpire) {
    end(proc, text_field(fields, field::kOwner), token_of(fields));
  } else if (event == EventKind::kLeaseRelease) {
    if (text_field(fields, field::kBy) != text_field(fields, field::kOwner)) {
      ++counts_.violations[static_cast<std::size_t>(ViolationKind::kForeignRelease)];
    }
    end(proc, text_field(fields, field::kOwner), token_of(fields));
  } else if (event == EventKind::kLeaseLost) {
    forget(proc, text_field(fields, field::kOwner), token_of(fields));
  } else if (event == EventKind::kLeaseAdopt) {
    adopt(now, proc,
          Promise{std::string{text_field(fields, field::kOwner)}, token_of(fields), now, lease_length(fields)});
  } else if (event == EventKind::kCrash && !vocabulary::is_worker(proc)) {
    crash_instance(proc);
  } else if (event == EventKind::kHoldBegin) {
    begin_work(now, proc);
  } else if (event == EventKind::kHoldEnd || (event == EventKind::kCrash && vocabulary::is_worker(proc))) {
    stop_work(now, proc, event == EventKind::kCrash ? WorkStop::kCrash : WorkStop::kHoldEnd);
  } else if (event == EventKind::kAcquireFail) {
    failed_acquire(now, proc);
  } else if (event == EventKind::kReadAccept) {
    served(text_field(fields, field::kReader), integer_field(fields, field::kToken));
  } else if (event == EventKind::kWriteAccept) {
    const std::optional<std::int64_t> job = integer_field(fields, field::kJob);
    accepted_write(text_field(fields, field::kWriter), integer_field(fields, field::kToken), text_field(fields, field::kKey),
                   job ? std::to_string(*job) : std::string_view{text_field(fields, field::kJob)});
  } else if (event == EventKind::kEffectAccept) {
    // An external effect (the payments node): no storage write, so no lock order
    // and no counter; it is one more effect for its job.
    const std::optional<std::int64_t> job = integer_field(fields, field::kJob);
    accepted_effect(job ? std::to_string(*job) : std::string{text_field(fields, field::kJob)});
  }
}

// --- Promises and gains -----------------------------------------------------

void Oracle::forget_due_promises(sim::Time now) {
  // A forgotten lease stops being promised when its length has run out: over
  // before anything else happens at that instant.
  const auto due = [now](const ForgottenPromise& forgotten) { return forgotten.ends_at && *forgotten.ends_at <= now; };
  for (const ForgottenPromise& forgotten : forgotten_) {
    if (due(forgotten)) count_promise(forgotten.instance, forgotten.promise.owner, -1);
  }
  std::erase_if(forgotten_, due);
}

void Oracle::grant(sim::Time now, std::string_view instance, Promise promise, Granted granted) {
  // An instance keeps one value per key: a grant over a live lease replaces
  // it (a plain SET), and the replaced owner's promise runs out on its own.
  if (const auto live = live_by_instance_.find(instance); live != live_by_instance_.end()) {
    forget(instance, live->second.owner, live->second.token);
    forget_due_promises(now);
  }
  const std::string owner_name = promise.owner;
  const std::int64_t token = promise.token;
  const bool held = owner(owner_name).holds;
  live_by_instance_.insert_or_assign(std::string{instance}, std::move(promise));
  count_promise(instance, owner_name, +1);
  OwnerState& state = owner(owner_name);
  if (!held && state.holds) {
    state.gained_token = token;
  } else if (held && granted == Granted::kNewLease && token != state.gained_token &&
             instances_promising(owner_name, token) >= setup_.quorum) {
    // A re-gain: the owner still holds by an older lease of its own (forgotten,
    // or granted over) and won the lock anew: the next place in the lock order,
    // but no new holding stretch and no double grant with itself.
    state.gained_token = token;
    state.epoch = ++gains_;
  } else {
    return;
  }
  state.recent_gains.emplace_back(token, *state.epoch);
  if (state.recent_gains.size() > checker::kGainsMatchedByToken) state.recent_gains.pop_front();
}

int Oracle::instances_promising(std::string_view owner_name, std::int64_t token) const {
  std::set<std::string_view> instances;
  for (const auto& [instance, live] : live_by_instance_) {
    if (live.owner == owner_name && live.token == token) instances.insert(instance);
  }
  for (const ForgottenPromise& forgotten : forgotten_) {
    if (forgotten.promise.owner == owner_name && forgotten.promise.token == token) {
      instances.insert(forgotten.instance);
    }
  }
  return static_cast<int>(instances.size());
}

void Oracle::renew(sim::Time now, std::string_view instance, std::string_view owner_name, std::int64_t token,
                   std::optional<sim::Duration> length) {
  const auto live = live_by_instance_.find(instance);
  if (live != live_by_instance_.end() && live->second.owner == owner_name && live->second.token == token) {
    live->second.renewed_at = now;
    live->second.length = length;
    return;
  }
  const auto crashed_with = crashed_with_lease(instance, owner_name, token);
  if (crashed_with != forgotten_.end() && live == live_by_instance_.end()) {
    // Restarted with the lease it crashed with, the instance extends it: live
    // again, and still counted, so no gain.
    Promise revived = std::move(crashed_with->promise);
    revived.renewed_at = now;
    revived.length = length;
    forgotten_.erase(crashed_with);
    live_by_instance_.emplace(std::string{instance}, std::move(revived));
    return;
  }
  grant(now, instance, Promise{std::string{owner_name}, token, now, length});  // it does promise it from now on
}

void Oracle::end(std::string_view instance, std::string_view owner_name, std::int64_t token) {
  const auto live = live_by_instance_.find(instance);
  if (live == live_by_instance_.end() || live->second.owner != owner_name || live->second.token != token) {
    // Restarted with the lease it had when it crashed (persisted), it ends it now.
    const auto crashed_with = crashed_with_lease(instance, owner_name, token);
    if (crashed_with == forgotten_.end()) return;
    const std::string ended_owner = crashed_with->promise.owner;
    forgotten_.erase(crashed_with);
    count_promise(instance, ended_owner, -1);
    return;
  }
  const std::string ended_owner = std::move(live->second.owner);
  live_by_instance_.erase(live);
  count_promise(instance, ended_owner, -1);
}

void Oracle::forget(std::string_view instance, std::string_view owner_name, std::int64_t token, Forgotten why) {
  const auto live = live_by_instance_.find(instance);
  if (live == live_by_instance_.end() || live->second.owner != owner_name || live->second.token != token) return;
  ForgottenPromise forgotten{std::move(live->second), std::string{instance}, std::nullopt,
                             why == Forgotten::kInstanceCrashed};
  if (forgotten.promise.length) forgotten.ends_at = forgotten.promise.renewed_at + *forgotten.promise.length;
  live_by_instance_.erase(live);
  forgotten_.push_back(std::move(forgotten));
}

std::vector<Oracle::ForgottenPromise>::iterator Oracle::crashed_with_lease(std::string_view instance,
                                                                           std::string_view owner_name,
                                                                           std::int64_t token) {
  return std::find_if(forgotten_.begin(), forgotten_.end(), [&](const ForgottenPromise& forgotten) {
    return forgotten.crashed && forgotten.instance == instance && forgotten.promise.owner == owner_name &&
           forgotten.promise.token == token;
  });
}

void Oracle::crash_instance(std::string_view instance) {
  const auto live = live_by_instance_.find(instance);
  if (live == live_by_instance_.end()) return;
  const std::string owner_name = live->second.owner;
  forget(instance, owner_name, live->second.token, Forgotten::kInstanceCrashed);
}

void Oracle::adopt(sim::Time now, std::string_view instance, Promise promise) {
  // The same lease (owner and token), now promised by the promoted replica:
  // it moves there from wherever it was promised, and is no new gain. The
  // adopter takes it first, so the owner's standing never dips in between.
  const auto same_lease = [owner_name = promise.owner, token = promise.token](const Promise& other) {
    return other.owner == owner_name && other.token == token;
  };
  grant(now, instance, std::move(promise), Granted::kAdopted);
  for (auto live = live_by_instance_.begin(); live != live_by_instance_.end();) {
    if (live->first != instance && same_lease(live->second)) {
      count_promise(live->first, live->second.owner, -1);
      live = live_by_instance_.erase(live);
    } else {
      ++live;
    }
  }
  for (const ForgottenPromise& forgotten : forgotten_) {
    if (same_lease(forgotten.promise)) count_promise(forgotten.instance, forgotten.promise.owner, -1);
  }
  std::erase_if(forgotten_, [&same_lease](const ForgottenPromise& forgotten) { return same_lease(forgotten.promise); });
}

void Oracle::count_promise(std::string_view instance, const std::string& owner_name, int delta) {
  OwnerState& state = owner(owner_name);
  auto& promises = state.promises_by_instance[std::string{instance}];
  promises += delta;
  if (promises <= 0) state.promises_by_instance.erase(std::string{instance});
  const bool holds = static_cast<int>(state.promises_by_instance.size()) >= setup_.quorum;
  if (holds == state.holds) return;
  state.holds = holds;
  if (!holds) {
    close_stretch(holding_, state.holding_stretch);
    return;
  }
  state.holding_stretch = open_stretch(holding_, last_now_);
  // A gain: the owner now holds the lock. Every other owner holding it too is
  // a double grant; the gain takes the next place in the lock order.
  for (const auto& [other_name, other] : owners_) {
    if (other_name != owner_name && other.holds) {
      ++counts_.violations[static_cast<std::size_t>(ViolationKind::kDoubleGrant)];
    }
  }
  state.epoch = ++gains_;
}

// --- Workers -----------------------------------------------------------------

void Oracle::begin_work(sim::Time now, std::string_view worker) {
  for (auto& [other_name, other] : owners_) {
    if (other_name == worker || !other.working) continue;
    if (other.lease_end && *other.lease_end <= now) {
      other.overlaps_if_held_on.push_back(now);  // its lease ran out: only holding on later overlaps
    } else {
      ++counts_.violations[static_cast<std::size_t>(ViolationKind::kDoubleHolder)];
    }
  }
  OwnerState& state = owner(worker);
  // A second hold.begin replaces the first: one stretch on, unless the first ended with its lease.
  const bool still_on = state.working && !(state.lease_end && *state.lease_end <= now);
  if (state.working && !still_on) end_stretch(now, state, StretchEnd::kAtLease);
  if (!still_on) state.working_stretch = open_stretch(working_, now);
  state.lease_end = state.next_lease_end;
  state.working = true;
  state.useless_since.reset();
  state.hold_ended = false;
  state.stuck_reported = false;
}

void Oracle::acquiring(std::string_view worker) {
  // Granted the lock (it may still wait for replicas before it holds): not idle.
  OwnerState& state = owner(worker);
  state.useless_since.reset();
  state.hold_ended = false;
  state.stuck_reported = false;
}

void Oracle::stop_work(sim::Time now, std::string_view worker, WorkStop why) {
  const bool crashed = why == WorkStop::kCrash;
  // Useless since its hold ended; a worker that ended no hold since its last
  // one began (it never got to hold, say) is useless since its latest crash:
  // a restarted worker that crashes again starts a new useless spell.
  OwnerState& state = owner(worker);
  if (state.working) end_stretch(now, state, crashed ? StretchEnd::kAtLease : StretchEnd::kNow);
  if (crashed) {
    // A restarted worker's calls start afresh.
    state.acquire_invoked_at.reset();
    state.renew_invoked_at.reset();
    state.next_lease_end.reset();
  }
  state.working = false;
  if (state.hold_ended) return;
  if (!crashed) state.hold_ended = true;
  if (state.useless_since != now) {
    state.useless_since = now;
    state.stuck_reported = false;
  }
}

void Oracle::renewed(std::string_view worker, std::optional<sim::Time> invoked_at,
                     std::optional<sim::Duration> length) {
  OwnerState& state = owner(worker);
  if (!invoked_at || !length) return;
  state.lease_end = *invoked_at + *length;
  state.next_lease_end = state.lease_end;
  if (!state.working) return;
  // Renewed on: it held on past every hold that began before its new end.
  const auto before_end = [&state](sim::Time begun) { return begun < *state.lease_end; };
  counts_.violations[static_cast<std::size_t>(ViolationKind::kDoubleHolder)] +=
      std::count_if(state.overlaps_if_held_on.begin(), state.overlaps_if_held_on.end(), before_end);
  std::erase_if(state.overlaps_if_held_on, before_end);
}

void Oracle::end_stretch(sim::Time now, OwnerState& state, StretchEnd end) {
  const bool at_lease = end == StretchEnd::kAtLease;
  if (at_lease && state.lease_end && *state.lease_end <= now) {
    working_[state.working_stretch].end = step_before(working_, state.working_stretch, *state.lease_end);
  } else {
    close_stretch(working_, state.working_stretch);
  }
  // A hold.end shows the worker held on past every hold that began after its lease ran out.
  if (!at_lease) {
    counts_.violations[static_cast<std::size_t>(ViolationKind::kDoubleHolder)] +=
        static_cast<std::int64_t>(state.overlaps_if_held_on.size());
  }
  state.overlaps_if_held_on.clear();
}

void Oracle::failed_acquire(sim::Time now, std::string_view worker) {
  // A lock is stuck when an owner that stopped being useful long ago is still
  // promised it while somebody else is turned away.
  for (auto& [owner_name, state] : owners_) {
    if (owner_name == worker || state.stuck_reported || !state.useless_since || state.promises_by_instance.empty()) {
      continue;
    }
    if (now - *state.useless_since > setup_.stuck_after) {
      ++counts_.violations[static_cast<std::size_t>(ViolationKind::kStuckLock)];
      state.stuck_reported = true;
    }
  }
}

// --- Tokens ------------------------------------------------------------------

void Oracle::granted_token(std::string_view instance, std::string_view owner_name, std::int64_t token) {
  // Redlock's instances count apart; one service's instances share the counter that replicates.
  TokenCounter& counter = token_counters_[setup_.quorum > 1 ? std::string{instance} : std::string{}];
  if (counter.granted && (token < counter.highest || (token == counter.highest && counter.highest_owner != owner_name))) {
    ++counts_.violations[static_cast<std::size_t>(ViolationKind::kTokenOrder)];
    if (!counter.below) ++counts_.incidents[static_cast<std::size_t>(ViolationKind::kTokenOrder)];
    counter.below = true;
    out_of_order_grants_.emplace(std::string{owner_name}, token);
    return;
  }
  if (!counter.granted || token > counter.highest) {
    counter = TokenCounter{token, std::string{owner_name}, true, false};
  }
}

void Oracle::invoked_acquire(std::string_view worker) {
  // The highest token any other owner had acquired when this acquisition began.
  std::optional<std::int64_t> highest;
  for (const auto& [owner_name, token] : highest_acquired_by_owner_) {
    if (owner_name != worker && (!highest || token > *highest)) highest = token;
  }
  highest_other_at_invoke_.insert_or_assign(std::string{worker}, highest);
}

void Oracle::acquired_token(std::string_view worker, std::int64_t token) {
  const auto [first, inserted] = acquired_tokens_.emplace(token, std::string{worker});
  const auto snapshot = highest_other_at_invoke_.find(worker);
  const bool reused = !inserted && first->second != worker;
  const bool not_higher = snapshot != highest_other_at_invoke_.end() && snapshot->second && token <= *snapshot->second;
  const auto [highest_of_worker, first_of_worker] = highest_acquired_by_owner_.emplace(std::string{worker}, token);
  if (!first_of_worker) highest_of_worker->second = std::max(highest_of_worker->second, token);
  if ((reused || not_higher) && !out_of_order_grants_.contains({std::string{worker}, token})) {
    ++counts_.violations[static_cast<std::size_t>(ViolationKind::kTokenOrder)];
    ++counts_.incidents[static_cast<std::size_t>(ViolationKind::kTokenOrder)];
  }
}

// --- Storage -----------------------------------------------------------------

std::optional<std::int64_t> Oracle::epoch_of(std::string_view worker, std::optional<std::int64_t> token) const {
  const auto found = owners_.find(worker);
  if (found == owners_.end()) return std::nullopt;
  const OwnerState& state = found->second;
  if (token && setup_.quorum == 1) {  // Redlock's per-instance tokens match by chance (checker's rule)
    const auto sent_under = std::find_if(state.recent_gains.rbegin(), state.recent_gains.rend(),
                                         [&](const auto& gain) { return gain.first == *token; });
    if (sent_under != state.recent_gains.rend()) return sent_under->second;
  }
  return state.epoch;
}

void Oracle::served(std::string_view worker, std::optional<std::int64_t> token) {
  if (const std::optional<std::int64_t> epoch = epoch_of(worker, token)) served_epoch_ = std::max(served_epoch_, *epoch);
}

void Oracle::accepted_write(std::string_view writer, std::optional<std::int64_t> token, std::string_view key,
                            std::string_view job) {
  ++accepted_writes_by_key_[std::string{key}];
  if (!job.empty()) accepted_effect(job);
  const std::optional<std::int64_t> written_under = epoch_of(writer, token);
  if (!written_under) return;  // never held: not tied to the lock
  const std::int64_t epoch = *written_under;
  if (served_epoch_ > epoch) {
    // Storage already served a holder that gained the lock after this writer.
    ++counts_.violations[static_cast<std::size_t>(ViolationKind::kStaleWrite)];
    stale_epochs_.insert(epoch);
  } else if (gains_ > epoch) {
    ++counts_.late_writes;  // superseded, but nobody after it has touched storage yet
  }
  served(writer, token);
}

void Oracle::accepted_effect(std::string_view job) {
  if (setup_.workload != OracleSetup::Workload::kBilling) return;
  const std::int64_t accepted = ++accepted_effects_by_job_[std::string{job}];
  if (accepted > 1) ++counts_.violations[static_cast<std::size_t>(ViolationKind::kDuplicateEffect)];
  if (accepted == 2) ++duplicated_jobs_;
}

// --- Incidents -----------------------------------------------------------------

std::size_t Oracle::open_stretch(std::vector<Stretch>& stretches, sim::Time now) {
  stretches.push_back(Stretch{++step_, kOpen, now});
  return stretches.size() - 1;
}

std::int64_t Oracle::step_before(const std::vector<Stretch>& stretches, std::size_t index, sim::Time time) const {
  // Stretches begin in time order: the first after `index` to begin at or after `time` does not overlap.
  for (std::size_t later = index + 1; later < stretches.size(); ++later) {
    if (stretches[later].begun_at >= time) return stretches[later].begin;
  }
  return step_ + 1;
}

void Oracle::close_stretch(std::vector<Stretch>& stretches, std::size_t index) { stretches[index].end = ++step_; }

std::int64_t Oracle::overlapping_groups(std::vector<Stretch> stretches) {
  // Stretches begin in step order already. A stretch that begins before every
  // stretch so far has ended overlaps one of them and joins their group.
  std::int64_t groups = 0;
  std::int64_t group_end = 0;
  std::size_t group_size = 0;
  for (const Stretch& stretch : stretches) {
    if (stretch.begin < group_end) {
      if (++group_size == 2) ++groups;
      group_end = std::max(group_end, stretch.end);
    } else {
      group_size = 1;
      group_end = stretch.end;
    }
  }
  return groups;
}

OracleCounts Oracle::finish(const std::map<std::string, std::int64_t>& final_values) const {
  OracleCounts counts = counts_;
  if (setup_.workload == OracleSetup::Workload::kCounter) {
    const auto accepted = accepted_writes_by_key_.find(setup_.counter_key);
    const auto final_value = final_values.find(setup_.counter_key);
    const std::int64_t writes = accepted == accepted_writes_by_key_.end() ? 0 : accepted->second;
    const std::int64_t value = final_value == final_values.end() ? 0 : final_value->second;
    counts.violations[static_cast<std::size_t>(ViolationKind::kLostUpdate)] = std::max<std::int64_t>(0, writes - value);
  }
  const auto incidents = [&counts](ViolationKind kind) -> std::int64_t& {
    return counts.incidents[static_cast<std::size_t>(kind)];
  };
  incidents(ViolationKind::kDoubleGrant) = overlapping_groups(holding_);
  // A hold still open at the end whose lease ran out ended with the lease.
  std::vector<Stretch> working = working_;
  for (const auto& [name, state] : owners_) {
    if (state.working && state.lease_end) {
      working[state.working_stretch].end = step_before(working_, state.working_stretch, *state.lease_end);
    }
  }
  incidents(ViolationKind::kDoubleHolder) = overlapping_groups(std::move(working));
  incidents(ViolationKind::kStaleWrite) = static_cast<std::int64_t>(stale_epochs_.size());
  incidents(ViolationKind::kForeignRelease) = counts.of(ViolationKind::kForeignRelease);
  incidents(ViolationKind::kStuckLock) = counts.of(ViolationKind::kStuckLock);
  incidents(ViolationKind::kLostUpdate) = counts.of(ViolationKind::kLostUpdate) > 0 ? 1 : 0;
  incidents(ViolationKind::kDuplicateEffect) = duplicated_jobs_;
  return counts;
}

}  // namespace locksim::runner
