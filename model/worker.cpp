#include "model/worker.h"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include "model/client_rules.h"
#include "model/protocol.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::model {

using vocabulary::EventKind;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

using sim::Context;
using sim::Duration;

Worker::Worker(std::string name, SystemOptions options, LockClient& client, sim::NodeId storage,
               std::optional<sim::NodeId> payments, std::function<void()> on_finished)
    : name_{std::move(name)},
      options_{std::move(options)},
      client_{&client},
      storage_{storage},
      payments_{payments},
      on_finished_{std::move(on_finished)} {}

sim::NodeBoot Worker::boot() {
  return [this](Context context) {
    if (!finished_) {
      context.spawn("jobs", run(context));
    }
  };
}

sim::Task<> Worker::run(Context context) {
  // Its planned start, on its own monotonic clock (which reads 0 at t = 0 and
  // goes on through a crash): a restart before then still waits for it. No
  // zero sleep: a worker without an offset asks at t = 0, as it always did.
  const sim::LocalTime start = sim::LocalTime{} + start_offset_;
  if (context.monotonic_now() < start) co_await context.sleep_until(start, sim::ClockKind::kMonotonic);
  const std::optional<int> jobs = jobs_per_worker(options_.workload);
  while (jobs_.any_left(jobs)) {
    const std::optional<Lease> granted = co_await acquire_until_granted(context);
    if (!granted) {
      ++jobs_.given_up;
      if (stops_after_giving_up(options_.workload)) break;
      co_await context.sleep(context.draw(options_.workers.between, "workers.between"));
      continue;
    }
    const Lease& lease = *granted;
    begin_hold(context, lease);
    // A fault point: a pause "after acquire" takes effect before anything else.
    co_await context.sleep(Duration::zero());
    if (options_.workers.renew == RenewMethod::kWatchdog && lease.length != Duration::max()) {
      context.spawn("renewal", renew_while_holding(context, hold_number_));
    }
    const JobResult result = co_await do_job_holding(context);
    if (held_) {
      end_hold(context);
    }
    if (options_.workers.release != ReleaseMethod::kNone) {
      co_await release_lock(context, lease);
    }
    if (result.no_more_work) {
      break;
    }
    if (result.done) {
      ++jobs_.done;
    }
    co_await context.sleep(context.draw(options_.workers.between, "workers.between"));
  }
  finished_ = true;
  on_finished_();
}

sim::Task<std::optional<Lease>> Worker::acquire_until_granted(Context context) {
  const std::string& lock = options_.lock.name;
  const sim::LocalTime started = context.now();
  const sim::LocalTime asked = context.monotonic_now();
  std::int64_t tries = 0;
  while (true) {
    const std::string value = fmt::format("{}#{}", name_, ++acquisitions_);
    context.record(EventKind::kAcquireInvoke, {{field::kLock, lock}});
    ++costs_.calls;
    AcquireOutcome outcome = co_await client_->acquire(context, name_, value);
    if (outcome.lease) {
      costs_.acquire_wait += context.monotonic_now() - asked;
      if (outcome.lease->length == Duration::max()) {
        context.record(
            EventKind::kAcquireOk,
            {{field::kLock, lock}, {field::kToken, outcome.lease->token}, {field::kLocalTime, context.now()}});
      } else if (outcome.lease->validity) {
        context.record(EventKind::kAcquireOk, {{field::kLock, lock},
                                               {field::kToken, outcome.lease->token},
                                               {field::kLeaseNs, outcome.lease->length},
                                               {field::kValidityNs, *outcome.lease->validity},
                                               {field::kLocalTime, context.now()}});
      } else {
        context.record(EventKind::kAcquireOk, {{field::kLock, lock},
                                               {field::kToken, outcome.lease->token},
                                               {field::kLeaseNs, outcome.lease->length},
                                               {field::kLocalTime, context.now()}});
      }
      co_return std::move(*outcome.lease);
    }
    context.record(EventKind::kAcquireFail, {{field::kLock, lock}, {field::kReason, outcome.reason}});
    ++tries;
    const AfterFailedAcquire next =
        after_failed_acquire(options_.workers.max_tries, options_.workers.acquire_timeout, tries,
                             context.now() - started, context.draw(options_.workers.retry, "workers.retry"));
    if (next.give_up != nullptr) {
      context.record(EventKind::kAcquireGiveUp,
                     {{field::kLock, lock}, {field::kReason, next.give_up}, {field::kTries, tries}});
      co_return std::nullopt;
    }
    co_await context.sleep(next.wait);
  }
}

void Worker::begin_hold(Context context, const Lease& lease) {
  held_ = lease;
  ++hold_number_;
  lease_lost_ = false;
  context.record(EventKind::kHoldBegin, {{field::kLock, options_.lock.name}, {field::kToken, lease.token}});
}

void Worker::end_hold(Context context) {
  // The reason is what this worker can know: a failed renewal, or its own
  // clock saying the lease ran out; otherwise it gives the lock up.
  context.record(EventKind::kHoldEnd, {{field::kLock, options_.lock.name},
                                       {field::kToken, held_->token},
                                       {field::kReason, hold_end_reason(lease_lost_, lease_ran_out(context))}});
  held_.reset();
  ++hold_number_;  // stops this hold's renewal process
}

void Worker::before_crash(sim::Simulation& simulation) {
  if (held_) {
    simulation.record(
        name_, EventKind::kHoldEnd,
        {{field::kLock, options_.lock.name}, {field::kToken, held_->token}, {field::kReason, reason::kCrash}});
    held_.reset();
    ++hold_number_;
  }
}

bool Worker::lease_ran_out(Context context) const {
  // On the clock the client timed the lease on (workers.clock): a wall clock
  // set back makes a wall-clock client believe time remains (H3); a
  // monotonic one cannot be fooled so.
  return context.now(client_->lease_clock()) >= held_->valid_until;
}

std::optional<std::int64_t> Worker::token_to_send() const {
  if (options_.storage.fencing != Fencing::kOn || !held_) {
    return std::nullopt;
  }
  return held_->token;
}

sim::Task<Worker::JobResult> Worker::do_job_holding(Context context) {
  const std::string& key = workload_key(options_.workload);
  const Duration timeout = options_.service.request_timeout;

  const auto* billing = std::get_if<BillingWorkload>(&options_.workload);
  const bool external = billing != nullptr && billing->charge == Charge::kExternal;
  std::optional<std::int64_t> observed;  // none for write-only: no read
  if (!std::holds_alternative<WriteOnlyWorkload>(options_.workload)) {
    context.record(EventKind::kReadInvoke, {{field::kKey, key}});
    ++costs_.calls;
    const std::optional<std::int64_t> read_token =
        options_.storage.fence_reads ? token_to_send() : std::nullopt;
    ReadCommand read_command{key, name_, read_token};
    const std::optional<sim::Message> read = co_await context.call(storage_, std::move(read_command), timeout);
    if (!read || !read->body.get<ReadReply>().accepted) {
      // The spec has no read.fail: like an unanswered invoke in a Jepsen
      // history, the read.invoke stays without a completion (storage's
      // read.reject says why when it refused a fenced read).
      co_return JobResult{};
    }
    observed = read->body.get<ReadReply>().value;
    context.record(EventKind::kReadOk, {{field::kKey, key}, {field::kValue, *observed}});
  }
  std::optional<WriteIntent> intent = write_intent(options_, name_, observed, jobs_.done, attempt_keys_);
  if (!intent) {
    co_return JobResult{true, true};  // every customer billed
  }

  co_await context.sleep(context.draw(options_.workers.work, "workers.work", true));

  if (skips_write(options_.workers, lease_lost_, lease_ran_out(context))) {
    co_return JobResult{};  // the hold ends (expired or lost) without writing
  }
  if (options_.workers.check_before_write) {
    // The client's steps from its look to its write leaving: a pause that
    // lands here is one the check could not see.
    co_await context.sleep(context.draw(options_.workers.check_to_write, "workers.check_to_write", true));
  }
  if (external) {
    // Step one, the charge, goes to payments with the key; step two, mark
    // done, is the cursor write, which carries no job (it is no charge) and
    // no idempotency key (writing the same cursor again harms nothing).
    if (!co_await charge_externally(context, *intent->job, std::move(intent->request_id))) {
      co_return JobResult{};
    }
    intent->request_id.reset();
    intent->job.reset();
  }
  WriteCommand write{key, intent->value, name_, token_to_send(), intent->request_id, intent->job};
  std::vector<sim::Field> fields{{field::kKey, key}, {field::kValue, write.value}};
  if (write.token) fields.emplace_back(field::kToken, *write.token);
  if (write.request_id) fields.emplace_back(field::kRequestId, *write.request_id);
  if (write.job) fields.emplace_back(field::kJob, *write.job);
  context.record_fields(EventKind::kWriteInvoke, fields);
  ++costs_.calls;
  // A fault point: a pause "before write" freezes the worker with the write in hand.
  co_await context.sleep(Duration::zero());
  const std::optional<sim::Message> reply = co_await context.call(storage_, std::move(write), timeout);
  if (!reply) {
    context.record(EventKind::kWriteFail, {{field::kReason, reason::kTimeout}});
    co_return JobResult{};
  }
  const WriteReply& answer = reply->body.get<WriteReply>();
  if (!answer.accepted) {
    context.record(EventKind::kWriteFail, {{field::kReason, answer.reason}});
    co_return JobResult{};
  }
  context.record(EventKind::kWriteOk);
  co_return JobResult{true, false};
}

sim::Task<bool> Worker::charge_externally(Context context, std::int64_t customer,
                                          std::optional<std::string> request_id) {
  ChargeCommand charge{customer, name_, std::move(request_id), token_to_send()};
  std::vector<sim::Field> fields{{field::kJob, customer}};
  if (charge.request_id) fields.emplace_back(field::kRequestId, *charge.request_id);
  if (charge.token) fields.emplace_back(field::kToken, *charge.token);
  context.record_fields(EventKind::kEffectInvoke, fields);
  ++costs_.calls;
  // A fault point: a pause "before write" freezes the worker with the charge in hand.
  co_await context.sleep(Duration::zero());
  const std::optional<sim::Message> reply =
      co_await context.call(*payments_, std::move(charge), options_.service.request_timeout);
  if (!reply) {
    // The charge may still land: the worker cannot know, so the job is redone.
    context.record(EventKind::kEffectFail, {{field::kReason, reason::kTimeout}});
    co_return false;
  }
  if (reply->body.get<ChargeReply>().replayed) {
    context.record(EventKind::kEffectOk, {{field::kReplayed, true}});
  } else {
    context.record(EventKind::kEffectOk);
  }
  co_return true;
}

sim::Task<> Worker::renew_while_holding(Context context, std::uint64_t hold_number) {
  const Duration lease = options_.lock.lease.value_or(Duration::max());
  const Duration every = options_.workers.renew_every.value_or(lease / 3);
  while (true) {
    co_await context.sleep(every);
    if (hold_number != hold_number_) {
      co_return;  // the hold ended
    }
    int resends_left = options_.workers.renew_retries;
    RenewOutcome outcome;
    while (true) {
      context.record(EventKind::kRenewInvoke, {{field::kLock, options_.lock.name}, {field::kToken, held_->token}});
      ++costs_.calls;
      outcome = co_await client_->renew(context, *held_);
      if (hold_number != hold_number_) co_return;
      if (outcome.renewed || resends_left == 0 || !resends_renewal_after(options_.service.kind, outcome.reason)) break;
      context.record(EventKind::kRenewFail, {{field::kReason, outcome.reason}});
      --resends_left;
      co_await context.sleep(context.draw(options_.workers.renew_retry_delay, "workers.renew_retry_delay", true));
      if (hold_number != hold_number_) co_return;
    }
    if (!outcome.renewed) {
      context.record(EventKind::kRenewFail, {{field::kReason, outcome.reason}});
      if (renews_again_after(options_.workers, outcome.reason)) continue;
      lease_lost_ = true;
      co_return;
    }
    held_->valid_until = outcome.valid_until;
    context.record(EventKind::kRenewOk, {{field::kToken, held_->token}, {field::kLeaseNs, lease}});
  }
}

sim::Task<> Worker::release_lock(Context context, Lease lease) {
  context.record(EventKind::kReleaseInvoke, {{field::kLock, options_.lock.name}, {field::kToken, lease.token}});
  ++costs_.calls;
  const ReleaseOutcome outcome = co_await client_->release(context, name_, std::move(lease));
  if (outcome.released) {
    context.record(EventKind::kReleaseOk);
  } else {
    context.record(EventKind::kReleaseFail, {{field::kReason, outcome.reason}});
  }
}

}  // namespace locksim::model
