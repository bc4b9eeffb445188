#include "model/consensus_lock_client.h"

#include <algorithm>

#include "model/client_rules.h"
#include "model/consensus_protocol.h"
#include "vocabulary/reason.h"

namespace locksim::model {

namespace reason = vocabulary::reason;

using sim::Context;
using sim::Duration;
using sim::LocalTime;

ConsensusLockClient::ConsensusLockClient(std::vector<sim::NodeId> members, std::size_t first, std::string lock,
                                         std::optional<Duration> lease, Duration request_timeout)
    : members_{std::move(members)},
      member_{first % members_.size()},
      lock_{std::move(lock)},
      ttl_{lease.value_or(Duration::max())},
      poll_every_{consensus_poll_interval(lease, request_timeout)},
      request_timeout_{request_timeout} {}

LocalTime ConsensusLockClient::valid_until(LocalTime sent_at) const {
  return ttl_ == Duration::max() ? LocalTime::max() : sent_at + ttl_;
}

sim::Task<AcquireOutcome> ConsensusLockClient::acquire(Context context, std::string owner, std::string value) {
  // Giving up is a timeout (monotonic clock); the lease belief is on the lease clock.
  const LocalTime give_up_at = context.monotonic_now() + request_timeout_;
  bool create = true;
  while (true) {
    const LocalTime sent_at = context.now(lease_clock());
    const Duration wait = std::clamp(give_up_at - context.monotonic_now(), Duration::zero(), poll_every_);
    ConsensusLockCommand command{lock_, owner, value, ttl_, wait, create};
    const std::optional<sim::Message> reply = co_await context.call(member(), std::move(command), wait + request_timeout_);
    if (!reply) {
      if (members_.size() > 1) next_member();
      co_await give_up(context, owner, value);
      co_return AcquireOutcome{std::nullopt, reason::kTimeout};
    }
    create = false;
    const ConsensusLockReply& answer = reply->body.get<ConsensusLockReply>();
    switch (answer.status) {
      case ConsensusLockStatus::kGranted:
        co_return AcquireOutcome{Lease{answer.revision, ttl_, valid_until(sent_at), std::move(value), std::nullopt}, {}};
      case ConsensusLockStatus::kSessionGone:
        co_return AcquireOutcome{std::nullopt, reason::kSessionExpired};
      case ConsensusLockStatus::kWaiting:
        break;
    }
    if (context.monotonic_now() >= give_up_at) {
      co_await give_up(context, owner, value);
      co_return AcquireOutcome{std::nullopt, reason::kHeld};
    }
  }
}

sim::Task<std::optional<sim::Message>> ConsensusLockClient::call_some_member(Context context, sim::Payload request,
                                                                             Duration timeout) {
  for (std::size_t tried = 0; tried < members_.size(); ++tried) {
    std::optional<sim::Message> reply = co_await context.call(member(), request, timeout);
    if (reply) co_return reply;
    if (members_.size() > 1) next_member();
  }
  co_return std::nullopt;
}

sim::Task<> ConsensusLockClient::give_up(Context context, std::string owner, std::string session) {
  ConsensusUnlockCommand command{lock_, std::move(session), std::move(owner)};
  (void)co_await context.call(member(), std::move(command), request_timeout_);
}

sim::Task<RenewOutcome> ConsensusLockClient::renew(Context context, Lease lease) {
  const LocalTime sent_at = context.now(lease_clock());
  ConsensusKeepAliveCommand command{lease.value};
  const std::optional<sim::Message> reply = co_await call_some_member(context, std::move(command), request_timeout_);
  if (!reply) {
    co_return RenewOutcome{false, {}, reason::kTimeout};
  }
  if (!reply->body.get<ConsensusKeepAliveReply>().alive) {
    co_return RenewOutcome{false, {}, reason::kSessionExpired};
  }
  co_return RenewOutcome{true, valid_until(sent_at), {}};
}

sim::Task<ReleaseOutcome> ConsensusLockClient::release(Context context, std::string owner, Lease lease) {
  ConsensusUnlockCommand command{lock_, std::move(lease.value), std::move(owner)};
  const std::optional<sim::Message> reply = co_await call_some_member(context, std::move(command), request_timeout_);
  if (!reply) {
    co_return ReleaseOutcome{false, reason::kTimeout};
  }
  if (!reply->body.get<ConsensusUnlockReply>().released) {
    co_return ReleaseOutcome{false, reason::kSessionExpired};
  }
  co_return ReleaseOutcome{true, {}};
}

}  // namespace locksim::model
