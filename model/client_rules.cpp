#include "model/client_rules.h"

#include <algorithm>

#include <fmt/core.h>

#include "vocabulary/reason.h"

namespace locksim::model {

using sim::Duration;

std::optional<int> jobs_per_worker(const Workload& workload) {
  if (const auto* counter = std::get_if<CounterWorkload>(&workload)) return counter->jobs;
  if (const auto* write_only = std::get_if<WriteOnlyWorkload>(&workload)) return write_only->jobs;
  return std::nullopt;
}

AfterFailedAcquire after_failed_acquire(std::optional<int> max_tries, std::optional<Duration> timeout,
                                        std::int64_t tries, Duration elapsed, Duration drawn) {
  if (max_tries && tries >= *max_tries) return {drawn, vocabulary::reason::kMaxTries};
  if (!timeout) return {drawn, nullptr};
  const Duration left = *timeout - elapsed;
  if (left <= Duration::zero()) return {drawn, vocabulary::reason::kTimeout};
  return {std::min(drawn, left), nullptr};
}

bool stops_after_giving_up(const Workload& workload) { return std::holds_alternative<BillingWorkload>(workload); }

std::optional<WriteIntent> write_intent(const SystemOptions& options, std::string_view worker,
                                        std::optional<std::int64_t> observed, int done, std::uint64_t& attempt_keys) {
  WriteIntent intent;
  intent.value = observed ? *observed + 1 : done + 1;
  if (const auto* billing = std::get_if<BillingWorkload>(&options.workload); billing && observed) {
    if (*observed >= billing->customers) return std::nullopt;
    intent.job = *observed;  // the customer to charge: the cursor is the next unbilled one
    if (options.storage.idempotency_keys && billing->idempotency_key == IdempotencyKey::kJob) {
      intent.request_id = fmt::format("customer-{}", *observed);
    }
  }
  if (!intent.request_id && options.storage.idempotency_keys) {
    intent.request_id = fmt::format("{}-{}", worker, ++attempt_keys);
  }
  return intent;
}

const char* hold_end_reason(bool lease_lost, bool lease_ran_out) {
  if (lease_lost) return vocabulary::reason::kLost;
  return lease_ran_out ? vocabulary::reason::kExpired : vocabulary::reason::kReleased;
}

Duration consensus_poll_interval(std::optional<Duration> ttl, Duration request_timeout) {
  return ttl ? *ttl / 3 : request_timeout;
}

bool renews_again_after(const WorkerOptions& workers, std::string_view reason) {
  namespace why = vocabulary::reason;
  const bool lock_gone = reason == why::kNotOwner || reason == why::kNotHeld || reason == why::kSessionExpired ||
                         reason == why::kNoQuorum;
  return !lock_gone && workers.renew_on_error == RenewOnError::kRetry;
}

bool resends_renewal_after(ServiceKind service, std::string_view reason) {
  const bool redis_client = service == ServiceKind::kRedis || service == ServiceKind::kRedisFailover;
  return redis_client && reason == vocabulary::reason::kTimeout;
}

bool skips_write(const WorkerOptions& workers, bool lease_lost, bool lease_ran_out) {
  return workers.check_before_write && (lease_lost || lease_ran_out);
}

Duration redlock_validity(Duration ttl, Duration elapsed, double drift_factor, bool subtract_elapsed) {
  const Duration drift =
      Duration::nanoseconds(static_cast<std::int64_t>(drift_factor * static_cast<double>(ttl.count_ns()))) +
      kRedlockDriftAllowanceMinimum;
  return ttl - (subtract_elapsed ? elapsed : Duration::zero()) - drift;
}

}  // namespace locksim::model
