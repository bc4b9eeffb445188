#include "model/redlock_client.h"

#include <algorithm>
#include <utility>

#include "model/client_rules.h"
#include "model/protocol.h"
#include "sim/assert.h"
#include "vocabulary/reason.h"

namespace locksim::model {

namespace reason = vocabulary::reason;

using sim::Context;
using sim::Duration;
using sim::LocalTime;

RedlockClient::RedlockClient(std::vector<sim::NodeId> instances, std::string lock, RedlockClientOptions options)
    : instances_{std::move(instances)},
      lock_{std::move(lock)},
      options_{options},
      ttl_{options.lease.value_or(Duration::max())},
      per_request_timeout_{ttl_ == Duration::max() ? options.request_timeout
                                                   : std::min(options.request_timeout, ttl_ / 10)} {
  LOCKSIM_ASSERT(!instances_.empty(), "a Redlock client needs an instance");
  LOCKSIM_ASSERT(per_request_timeout_ > Duration::zero(), "a Redlock request needs a positive timeout");
}

Duration RedlockClient::validity_after(Duration elapsed) const {
  if (ttl_ == Duration::max()) {
    return Duration::max();  // no expiry: nothing to run out
  }
  return redlock_validity(ttl_, elapsed, options_.drift_factor,
                          options_.elapsed_check == ElapsedCheck::kSubtractElapsed);
}

LocalTime RedlockClient::believed_until(LocalTime start) const {
  // The validity is counted from the round's start: start + TTL − drift
  // (redsync's mutex.go, node-redlock), not from the replies — which would
  // take the round's time off twice.
  return ttl_ == Duration::max() ? LocalTime::max() : start + validity_after(Duration::zero());
}

sim::Task<AcquireOutcome> RedlockClient::acquire(Context context, std::string owner, std::string value) {
  const LocalTime start = context.now(lease_clock());
  AcquireCommand command{lock_, owner, value, ttl_, true};
  const std::vector<std::optional<sim::Message>> replies =
      co_await context.call_all(instances_, std::move(command), per_request_timeout_);
  int grants = 0;
  std::int64_t highest_token = 0;
  for (const std::optional<sim::Message>& reply : replies) {
    if (reply && reply->body.get<AcquireReply>().answer == LockAnswer::kDone) {
      ++grants;
      highest_token = std::max(highest_token, reply->body.get<AcquireReply>().token);
    }
  }
  // Step 3: validity is what is left of the TTL once the round is over, on
  // this worker's clock (the only one it has).
  const LocalTime round_end = context.now(lease_clock());
  if (grants >= quorum() && validity_after(round_end - start) > Duration::zero()) {
    const LocalTime valid_until = believed_until(start);
    const std::optional<Duration> left =
        ttl_ == Duration::max() ? std::nullopt : std::optional<Duration>{valid_until - round_end};
    co_return AcquireOutcome{Lease{highest_token, ttl_, valid_until, std::move(value), left}, {}};
  }
  // Step 5: unlock everywhere, including instances whose grant was lost on
  // the way back; otherwise they would stay locked for the whole TTL.
  (void)co_await delete_everywhere(context, std::move(owner), value);
  co_return AcquireOutcome{std::nullopt, grants >= quorum() ? reason::kValidityElapsed : reason::kNoQuorum};
}

sim::Task<RenewOutcome> RedlockClient::renew(Context context, Lease lease) {
  const LocalTime start = context.now(lease_clock());
  ExtendCommand command{lock_, lease.value, ttl_, options_.renew_command == RenewCommand::kCompareAndExtend};
  const std::vector<std::optional<sim::Message>> replies =
      co_await context.call_all(instances_, std::move(command), per_request_timeout_);
  const auto extended = std::count_if(replies.begin(), replies.end(), [](const std::optional<sim::Message>& reply) {
    return reply && reply->body.get<ExtendReply>().answer == LockAnswer::kDone;
  });
  const Duration validity = validity_after(context.now(lease_clock()) - start);
  if (extended < quorum()) {
    co_return RenewOutcome{false, {}, reason::kNoQuorum};
  }
  if (validity <= Duration::zero()) {
    co_return RenewOutcome{false, {}, reason::kValidityElapsed};
  }
  co_return RenewOutcome{true, believed_until(start), {}};
}

sim::Task<ReleaseOutcome> RedlockClient::release(Context context, std::string owner, Lease lease) {
  const int deleted = co_await delete_everywhere(context, std::move(owner), std::move(lease.value));
  if (deleted < quorum()) {
    // Some keys had expired or been taken by another client: this worker no
    // longer held the lock in the quorum sense when it let go.
    co_return ReleaseOutcome{false, reason::kNoQuorum};
  }
  co_return ReleaseOutcome{true, {}};
}

sim::Task<int> RedlockClient::delete_everywhere(Context context, std::string requester, std::string value) {
  const bool compare = options_.release != ReleaseMethod::kPlainDelete;
  ReleaseCommand command{lock_, std::move(requester), std::move(value), compare};
  const std::vector<std::optional<sim::Message>> replies =
      co_await context.call_all(instances_, std::move(command), per_request_timeout_);
  const auto deleted = std::count_if(replies.begin(), replies.end(), [](const std::optional<sim::Message>& reply) {
    return reply && reply->body.get<ReleaseReply>().answer == LockAnswer::kDone;
  });
  co_return static_cast<int>(deleted);
}

}  // namespace locksim::model
