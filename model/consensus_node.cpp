#include "model/consensus_node.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"

namespace locksim::model {

using vocabulary::EventKind;
namespace field = vocabulary::field;

namespace {

using sim::Context;
using sim::Duration;
using sim::LocalTime;

// Every time this node decides by is on its monotonic clock: etcd's lessor
// times leases with Go's monotonic reading (time.Since), ZooKeeper's session
// tracker with System.nanoTime (Time.currentElapsedTime). So setting the wall
// clock (NTP, an operator) ends no session early or late; drift still counts.
LocalTime deadline_after(LocalTime now, Duration ttl) { return ttl == Duration::max() ? LocalTime::max() : now + ttl; }

}  // namespace

ConsensusNode::ConsensusNode(std::string name, Duration lock_delay, Expiry expiry)
    : name_{std::move(name)}, lock_delay_{lock_delay}, expiry_{expiry} {}

sim::NodeBoot ConsensusNode::boot() {
  return [this](Context context) { on_boot(context); };
}

void ConsensusNode::on_boot(Context context) {
  if (booted_before_) take_over(context, Duration::zero());
  booted_before_ = true;
  context.spawn("server", serve(context));
  for (const auto& [name, session] : sessions_) {
    if (session.deadline != LocalTime::max()) {
      context.spawn("session", watch_session(context, name, session.number));
    }
  }
  std::vector<std::string> lock_names;
  for (const auto& [name, state] : locks_) {
    lock_names.push_back(name);
  }
  for (const std::string& name : lock_names) {
    grant_if_free(context, name);
  }
}

void ConsensusNode::take_over(Context context, Duration extend) {
  // Requests held in the old leader's memory are gone, and every session gets
  // a fresh TTL so its client has a chance to keep it alive (etcd's lessor
  // does this on promotion).
  ++epoch_;
  held_requests_.clear();
  revoking_.clear();
  for (auto& [name, session] : sessions_) {
    session.deadline = session.ttl == Duration::max() ? LocalTime::max()
                                                      : context.monotonic_now() + session.ttl + extend;
  }
  for (auto& [name, state] : locks_) {
    state.delay_timer_running = false;
  }
}

void ConsensusNode::promote(Context context, Duration extend) {
  take_over(context, extend);
  for (const auto& [lock_name, state] : locks_) {
    if (!state.head_granted || state.queue.empty()) continue;
    const Session& holder = sessions_.at(state.queue.begin()->second);
    std::vector<sim::Field> fields{
        {field::kLock, lock_name}, {field::kOwner, holder.owner}, {field::kToken, holder.revision}};
    if (holder.deadline != LocalTime::max()) fields.emplace_back(field::kLeaseNs, holder.deadline - context.monotonic_now());
    context.record_fields(EventKind::kLeaseAdopt, fields);
  }
  std::vector<std::string> lock_names;
  for (const auto& [name, state] : locks_) lock_names.push_back(name);
  for (const std::string& name : lock_names) grant_if_free(context, name);
}

bool ConsensusNode::needs_quorum(const sim::Message& request) {
  if (const auto* lock = request.body.get_if<ConsensusLockCommand>()) return lock->create;
  return request.body.holds<ConsensusUnlockCommand>() || request.body.holds<ValidateCommand>();
}

std::vector<std::string> ConsensusNode::due_sessions(LocalTime now) {
  std::vector<std::tuple<LocalTime, std::uint64_t, std::string>> due;
  for (const auto& [name, session] : sessions_) {
    if (session.deadline <= now && !revoking_.contains(name)) due.emplace_back(session.deadline, session.number, name);
  }
  std::sort(due.begin(), due.end());
  std::vector<std::string> names;
  for (const auto& [deadline, number, name] : due) {
    revoking_.insert(name);
    names.push_back(name);
  }
  return names;
}

void ConsensusNode::revoke(Context context, const std::string& session, std::optional<std::uint64_t> number) {
  const auto found = sessions_.find(session);
  if (number && (found == sessions_.end() || found->second.number != *number)) return;  // that session is gone
  revoking_.erase(session);
  if (found != sessions_.end()) end_session(context, session, EndCause::kExpired, {});
}

std::vector<ConsensusNode::SessionDeadline> ConsensusNode::session_deadlines() const {
  std::vector<SessionDeadline> deadlines;
  for (const auto& [name, session] : sessions_) {
    if (session.deadline != LocalTime::max()) deadlines.push_back({name, session.number, session.deadline});
  }
  return deadlines;
}

sim::Task<> ConsensusNode::serve(Context context) {
  while (true) {
    sim::Message request = co_await context.receive();
    handle(context, std::move(request));
  }
}

void ConsensusNode::handle(Context context, sim::Message request) {
  // Lazy expiry first: a request handled at the same instant as an expiry
  // timer, or right after a pause, sees the sessions this clock has ended.
  if (on_the_dot()) expire_due_sessions(context);
  if (request.body.holds<ConsensusLockCommand>()) {
    lock(context, std::move(request));
  } else if (const auto* keep = request.body.get_if<ConsensusKeepAliveCommand>()) {
    context.reply(request, keep_alive(context, *keep));
  } else if (const auto* unlock_command = request.body.get_if<ConsensusUnlockCommand>()) {
    context.reply(request, unlock(context, *unlock_command));
  } else if (const auto* question = request.body.get_if<ValidateCommand>()) {
    context.reply(request, validate(context, *question));
  }
}

void ConsensusNode::lock(Context context, sim::Message request) {
  const ConsensusLockCommand& command = request.body.get<ConsensusLockCommand>();
  const std::string session_name = command.session;
  auto session = sessions_.find(session_name);
  if (session == sessions_.end()) {
    if (!command.create) {
      const auto expired = expired_waiters_.find(session_name);
      if (expired == expired_waiters_.end()) {
        context.reply(request, ConsensusLockReply{ConsensusLockStatus::kSessionGone, 0});
        return;
      }
      // H15's bug: wait for the keys below the old revision, never checking
      // that this session's own key is still there.
      const std::string lock_name = expired->second.lock;
      hold(context, session_name, std::move(request));
      tell_expired_waiters(context, lock_name);
      return;
    }
    Session created;
    created.number = ++next_number_;
    created.owner = command.owner;
    created.lock = command.lock;
    created.revision = ++revision_;
    created.ttl = command.ttl;
    created.deadline = deadline_after(context.monotonic_now(), command.ttl);
    session = sessions_.emplace(session_name, std::move(created)).first;
    locks_[command.lock].queue.emplace(session->second.revision, session_name);
    if (on_the_dot() && session->second.deadline != LocalTime::max()) {
      context.spawn("session", watch_session(context, session_name, session->second.number));
    }
    grant_if_free(context, command.lock);
  } else if (session->second.deadline <= context.monotonic_now()) {
    // Only with Expiry::kByLeader (else it has ended already): etcd's lessor
    // renews no expired lease; its revocation is on its way.
    context.reply(request, ConsensusLockReply{ConsensusLockStatus::kSessionGone, 0});
    return;
  } else {
    refresh(context, session->second);  // a poll keeps a waiting session alive
  }
  if (holds(session->second)) {
    context.reply(request, ConsensusLockReply{ConsensusLockStatus::kGranted, session->second.revision});
    return;
  }
  hold(context, session_name, std::move(request));
}

void ConsensusNode::hold(Context context, const std::string& session, sim::Message request) {
  // A newer poll of the same session replaces an older one still held.
  answer_held(context, session, ConsensusLockReply{ConsensusLockStatus::kWaiting, 0});
  const Duration wait = request.body.get<ConsensusLockCommand>().wait;
  if (wait <= Duration::zero()) {
    context.reply(request, ConsensusLockReply{ConsensusLockStatus::kWaiting, 0});
    return;
  }
  const std::uint64_t number = ++next_number_;
  held_requests_.insert_or_assign(session, HeldRequest{number, std::move(request)});
  context.spawn("held", answer_when_wait_ends(context, session, number, wait));
}

bool ConsensusNode::has_key_below(const std::string& lock_name, std::int64_t revision) const {
  const auto state = locks_.find(lock_name);
  return state != locks_.end() && !state->second.queue.empty() && state->second.queue.begin()->first < revision;
}

void ConsensusNode::tell_expired_waiters(Context context, const std::string& lock_name) {
  std::vector<std::string> told;
  for (const auto& [session, waiter] : expired_waiters_) {
    if (waiter.lock == lock_name && held_requests_.contains(session) && !has_key_below(lock_name, waiter.revision)) {
      answer_held(context, session, ConsensusLockReply{ConsensusLockStatus::kGranted, waiter.revision});
      told.push_back(session);
    }
  }
  for (const std::string& session : told) {
    expired_waiters_.erase(session);
  }
}

sim::Task<> ConsensusNode::answer_when_wait_ends(Context context, std::string session, std::uint64_t number,
                                                 Duration wait) {
  co_await context.sleep(wait);
  const auto held = held_requests_.find(session);
  if (held != held_requests_.end() && held->second.number == number) {
    answer_held(context, session, ConsensusLockReply{ConsensusLockStatus::kWaiting, 0});
  }
}

void ConsensusNode::answer_held(Context context, const std::string& session, ConsensusLockReply reply) {
  const auto held = held_requests_.find(session);
  if (held == held_requests_.end()) {
    return;
  }
  context.reply(held->second.request, reply);
  held_requests_.erase(held);
}

ConsensusKeepAliveReply ConsensusNode::keep_alive(Context context, const ConsensusKeepAliveCommand& command) {
  const auto session = sessions_.find(command.session);
  if (session == sessions_.end() || session->second.deadline <= context.monotonic_now()) {
    return ConsensusKeepAliveReply{false};
  }
  refresh(context, session->second);
  return ConsensusKeepAliveReply{true};
}

ConsensusUnlockReply ConsensusNode::unlock(Context context, const ConsensusUnlockCommand& command) {
  expired_waiters_.erase(command.session);  // a waiter that gave up is told nothing more
  if (!sessions_.contains(command.session)) {
    return ConsensusUnlockReply{false};
  }
  end_session(context, command.session, EndCause::kReleased, command.requester);
  return ConsensusUnlockReply{true};
}

ValidateReply ConsensusNode::validate(Context context, const ValidateCommand& command) {
  (void)context;
  const auto state = locks_.find(command.lock);
  if (state == locks_.end() || !state->second.head_granted || state->second.queue.empty()) {
    return ValidateReply{false};
  }
  return ValidateReply{state->second.queue.begin()->first == command.token};
}

void ConsensusNode::refresh(Context context, Session& session) {
  session.deadline = deadline_after(context.monotonic_now(), session.ttl);
  if (holds(session) && session.ttl != Duration::max()) {
    context.record(EventKind::kLeaseRenew, {{field::kLock, session.lock},
                                            {field::kOwner, session.owner},
                                            {field::kToken, session.revision},
                                            {field::kLeaseNs, session.ttl}});
  }
}

bool ConsensusNode::holds(const Session& session) const {
  const auto state = locks_.find(session.lock);
  return state != locks_.end() && state->second.head_granted && !state->second.queue.empty() &&
         state->second.queue.begin()->first == session.revision;
}

void ConsensusNode::expire_due_sessions(Context context) {
  // Earliest deadline first, then creation order: never the map's name order.
  std::vector<std::tuple<LocalTime, std::uint64_t, std::string>> due;
  for (const auto& [name, session] : sessions_) {
    if (session.deadline <= context.monotonic_now()) {
      due.emplace_back(session.deadline, session.number, name);
    }
  }
  std::sort(due.begin(), due.end());
  for (const auto& [deadline, number, name] : due) {
    end_session(context, name, EndCause::kExpired, {});
  }
}

void ConsensusNode::end_session(Context context, const std::string& session_name, EndCause cause,
                                const std::string& by) {
  const auto session = sessions_.find(session_name);
  LOCKSIM_ASSERT(session != sessions_.end(), "ending a session that does not exist");
  const Session ended = session->second;
  LockState& state = locks_[ended.lock];
  if (holds(ended)) {
    if (cause == EndCause::kExpired) {
      context.record(EventKind::kLeaseExpire,
                     {{field::kLock, ended.lock}, {field::kOwner, ended.owner}, {field::kToken, ended.revision}});
      // The holder failed: whatever it was doing may still be in flight.
      state.grants_resume_at = context.monotonic_now() + lock_delay_;
    } else {
      context.record(EventKind::kLeaseRelease, {{field::kLock, ended.lock},
                                                {field::kOwner, ended.owner},
                                                {field::kToken, ended.revision},
                                                {field::kBy, by}});
    }
    state.head_granted = false;
  } else if (cause == EndCause::kExpired && tell_expired_waiters_they_hold_) {
    expired_waiters_.insert_or_assign(session_name, ExpiredWaiter{ended.lock, ended.revision});
  }
  state.queue.erase(ended.revision);
  ++revision_;  // the key's deletion is a change too
  sessions_.erase(session);
  answer_held(context, session_name, ConsensusLockReply{ConsensusLockStatus::kSessionGone, 0});
  grant_if_free(context, ended.lock);
  tell_expired_waiters(context, ended.lock);
}

void ConsensusNode::grant_if_free(Context context, const std::string& lock_name) {
  LockState& state = locks_[lock_name];
  if (state.queue.empty() || state.head_granted) {
    return;
  }
  if (context.monotonic_now() < state.grants_resume_at) {
    if (!state.delay_timer_running) {
      state.delay_timer_running = true;
      context.spawn("lock-delay", grant_when_delay_ends(context, lock_name, epoch_));
    }
    return;
  }
  const auto& [revision, session_name] = *state.queue.begin();
  const Session& session = sessions_.at(session_name);
  LOCKSIM_ASSERT(session.revision == revision, "a lock queue entry disagrees with its session");
  if (session.deadline <= context.monotonic_now()) {
    // This waiter's session ends at this very instant (several can after a
    // pause): expire_due_sessions ends it next and grants past it. Granting
    // it would promise a lease that is already over.
    return;
  }
  state.head_granted = true;
  if (session.deadline == LocalTime::max()) {
    context.record(EventKind::kLeaseGrant,
                   {{field::kLock, lock_name}, {field::kOwner, session.owner}, {field::kToken, revision}});
  } else {
    // The session's remaining time: all of the TTL for a key granted on
    // arrival, less for a waiter whose session has been ticking.
    context.record(EventKind::kLeaseGrant, {{field::kLock, lock_name},
                                            {field::kOwner, session.owner},
                                            {field::kToken, revision},
                                            {field::kLeaseNs, session.deadline - context.monotonic_now()}});
  }
  answer_held(context, session_name, ConsensusLockReply{ConsensusLockStatus::kGranted, revision});
}

sim::Task<> ConsensusNode::grant_when_delay_ends(Context context, std::string lock_name, std::uint64_t epoch) {
  co_await context.sleep_until(locks_[lock_name].grants_resume_at, sim::ClockKind::kMonotonic);
  if (epoch != epoch_) co_return;  // another leader took over (and runs its own timer)
  locks_[lock_name].delay_timer_running = false;
  if (on_the_dot()) expire_due_sessions(context);
  grant_if_free(context, lock_name);
}

sim::Task<> ConsensusNode::watch_session(Context context, std::string session_name, std::uint64_t number) {
  while (true) {
    const auto session = sessions_.find(session_name);
    if (session == sessions_.end() || session->second.number != number) {
      co_return;  // revoked or already expired
    }
    if (context.monotonic_now() >= session->second.deadline) {
      expire_due_sessions(context);
      co_return;
    }
    co_await context.sleep_until(session->second.deadline, sim::ClockKind::kMonotonic);  // a keep-alive moves it: look again
  }
}

}  // namespace locksim::model
