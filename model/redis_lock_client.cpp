#include "model/redis_lock_client.h"

#include "model/protocol.h"
#include "sim/assert.h"
#include "vocabulary/reason.h"

namespace locksim::model {

namespace reason = vocabulary::reason;

using sim::Context;

namespace {

// The failure reason of a lock command the instance did not carry out;
// `refused`: what a refusal means for this command.
const char* refusal_reason(LockAnswer answer, const char* refused) {
  switch (answer) {
    case LockAnswer::kReadOnly: return reason::kReadOnly;
    case LockAnswer::kNoReplicas: return reason::kNoReplicas;
    case LockAnswer::kOutOfMemory: return reason::kOutOfMemory;
    case LockAnswer::kDone:
    case LockAnswer::kRefused: break;
  }
  return refused;
}

// READONLY or NOREPLICAS: an error reply, after which a client asks Sentinel
// again. Not -OOM: the primary is the right one, only full.
bool answered_with_an_error(const sim::Message& reply) {
  const auto error = [](LockAnswer answer) {
    return answer == LockAnswer::kReadOnly || answer == LockAnswer::kNoReplicas;
  };
  if (const auto* acquire = reply.body.get_if<AcquireReply>()) return error(acquire->answer);
  if (const auto* release = reply.body.get_if<ReleaseReply>()) return error(release->answer);
  if (const auto* extend = reply.body.get_if<ExtendReply>()) return error(extend->answer);
  return false;
}

}  // namespace

RedisLockClient::RedisLockClient(std::vector<sim::NodeId> instances, std::shared_ptr<const RedisSentinel> sentinel,
                                 std::string lock, std::optional<sim::Duration> lease, AcquireMethod acquire_method,
                                 ReleaseMethod release_method, RenewCommand renew_command,
                                 sim::Duration request_timeout,
                                 std::optional<WaitReplicas> wait_replicas, SentinelDiscovery discovery)
    : instances_{std::move(instances)},
      sentinel_{std::move(sentinel)},
      lock_{std::move(lock)},
      lease_{lease.value_or(sim::Duration::max())},
      acquire_method_{acquire_method},
      release_method_{release_method},
      renew_command_{renew_command},
      request_timeout_{request_timeout},
      wait_replicas_{wait_replicas},
      discovery_{discovery} {
  LOCKSIM_ASSERT(!instances_.empty(), "a Redis client needs an instance");
  LOCKSIM_ASSERT(sentinel_ != nullptr, "a Redis client needs to know the primary");
}

std::size_t RedisLockClient::primary(Context context) {
  // Sentinel's answer (followed as announced: a request sent before a
  // failover stays with the old primary and may go unanswered, the next one
  // goes to the new, unless this client is cut off with the old primary).
  if (discovery_ == SentinelDiscovery::kSwitchMaster || !connected_primary_) {
    connected_primary_ = sentinel_->primary_for(context.node());
  }
  LOCKSIM_ASSERT(*connected_primary_ < instances_.size(), "Sentinel names an instance this client knows");
  return *connected_primary_;
}

sim::Task<std::optional<sim::Message>> RedisLockClient::ask_primary(Context context, sim::Payload request) {
  std::optional<sim::Message> reply = co_await context.call(instances_[primary(context)], std::move(request), request_timeout_);
  if (!reply || answered_with_an_error(*reply)) connected_primary_.reset();  // the next request asks Sentinel
  co_return reply;
}

sim::Task<AcquireOutcome> RedisLockClient::acquire(Context context, std::string owner, std::string value) {
  if (acquire_method_ == AcquireMethod::kGetThenSet) {
    GetCommand get{lock_};
    const std::optional<sim::Message> current = co_await ask_primary(context, std::move(get));
    if (!current) {
      co_return AcquireOutcome{std::nullopt, reason::kTimeout};
    }
    if (current->body.get<GetReply>().value) {
      co_return AcquireOutcome{std::nullopt, reason::kHeld};
    }
    // The race: between the GET and this SET another client may do the same.
    co_return co_await set(context, std::move(owner), std::move(value), SetWhen::kAlways);
  }
  co_return co_await set(context, std::move(owner), std::move(value), SetWhen::kOnlyIfAbsent);
}

sim::Task<AcquireOutcome> RedisLockClient::set(Context context, std::string owner, std::string value, SetWhen when) {
  // The lease counts from before the request left: the key may be set at any
  // moment of the round trip, so this is the belief that errs on the safe side.
  const sim::LocalTime sent_at = context.now(lease_clock());
  AcquireCommand command{lock_, owner, value, lease_, when == SetWhen::kOnlyIfAbsent};
  const std::optional<sim::Message> reply = co_await ask_primary(context, std::move(command));
  if (!reply) {
    co_return AcquireOutcome{std::nullopt, reason::kTimeout};
  }
  const AcquireReply& answer = reply->body.get<AcquireReply>();
  if (answer.answer != LockAnswer::kDone) {
    co_return AcquireOutcome{std::nullopt, refusal_reason(answer.answer, reason::kHeld)};
  }
  if (wait_replicas_ && !co_await replicated(context)) {
    // Not used: given back at once (best effort) rather than left to expire.
    ReleaseCommand give_back{lock_, owner, value, true};
    (void)co_await ask_primary(context, std::move(give_back));
    co_return AcquireOutcome{std::nullopt, reason::kNotReplicated};
  }
  const sim::LocalTime valid_until = lease_ == sim::Duration::max() ? sim::LocalTime::max() : sent_at + lease_;
  co_return AcquireOutcome{Lease{answer.token, lease_, valid_until, std::move(value), std::nullopt}, {}};
}

sim::Task<bool> RedisLockClient::replicated(Context context) {
  // The server blocks up to the WAIT timeout; the client allows a request timeout more for the answer.
  WaitCommand wait{wait_replicas_->replicas, wait_replicas_->timeout};
  const std::optional<sim::Message> reply =
      co_await context.call(instances_[primary(context)], std::move(wait),
                            wait_replicas_->timeout + request_timeout_);
  co_return reply && reply->body.get<WaitReply>().acknowledged >= wait_replicas_->replicas;
}

sim::Task<RenewOutcome> RedisLockClient::renew(Context context, Lease lease) {
  const sim::LocalTime sent_at = context.now(lease_clock());
  ExtendCommand command{lock_, lease.value, lease_, renew_command_ == RenewCommand::kCompareAndExtend};
  const std::optional<sim::Message> reply = co_await ask_primary(context, std::move(command));
  if (!reply) {
    co_return RenewOutcome{false, {}, reason::kTimeout};
  }
  const ExtendReply& answer = reply->body.get<ExtendReply>();
  if (answer.answer != LockAnswer::kDone) {
    co_return RenewOutcome{false, {}, refusal_reason(answer.answer, reason::kNotOwner)};
  }
  co_return RenewOutcome{true, sent_at + lease_, {}};
}

sim::Task<ReleaseOutcome> RedisLockClient::release(Context context, std::string owner, Lease lease) {
  const bool compare = release_method_ == ReleaseMethod::kCompareAndDelete;
  ReleaseCommand command{lock_, std::move(owner), lease.value, compare};
  const std::optional<sim::Message> reply = co_await ask_primary(context, std::move(command));
  if (!reply) {
    co_return ReleaseOutcome{false, reason::kTimeout};
  }
  const ReleaseReply& answer = reply->body.get<ReleaseReply>();
  if (answer.answer != LockAnswer::kDone) {
    co_return ReleaseOutcome{false, refusal_reason(answer.answer, reason::kNotOwner)};
  }
  co_return ReleaseOutcome{true, {}};
}

}  // namespace locksim::model
