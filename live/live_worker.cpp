#include "live/live_worker.h"

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "live/async_redis.h"
#include "live/etcd_lock_client.h"
#include "live/get_then_set_script.h"
#include "live/live_keys.h"
#include "live/lua_scripts.h"
#include "live/monotonic_clock.h"
#include "live/payments_script.h"
#include "live/primary_finder.h"
#include "live/redlock_client.h"
#include "live/time_scale.h"
#include "live/worker_line.h"
#include "model/client_rules.h"
#include "scenario/scenario_parser.h"
#include "sim/random.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::live {

using vocabulary::EventKind;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

namespace {

using Json = nlohmann::ordered_json;
using std::chrono::nanoseconds;

// How a job ended: its effect accepted (or nothing was left to do); billing's customers all billed.
struct JobResult {
  bool done = false;
  bool no_more_work = false;
};

struct Held {
  std::int64_t token = 0;
  std::string value;              // this acquisition's own key value
  std::int64_t valid_until_ns = 0;  // on the lease clock (workers.clock), from the acquire's send
  std::uint64_t hold = 0;
  std::optional<EtcdLockLease> session;  // consensus: the etcd session and key that hold it
};

class Worker {
 public:
  Worker(const WorkerConfig& config, const scenario::Scenario& scenario, asio::any_io_executor executor)
      : config_{config},
        options_{scenario.system},
        keys_{config.prefix},
        lock_{executor},
        renewals_{executor},
        storage_{executor},
        redlock_{executor, redlock_timing()},
        redlock_renewals_{executor, redlock_timing()},
        streams_{config.seed} {
    work_rng_ = streams_.stream(config.name + "/work");
    retry_rng_ = streams_.stream(config.name + "/retry");
  }

  asio::awaitable<void> run() {
    if (consensus()) {
      std::vector<std::string> endpoints;
      for (const int port : config_.lock_ports) endpoints.push_back(fmt::format("{}:{}", config_.host, port));
      etcd_.emplace(lock_.executor(), std::move(endpoints), static_cast<std::size_t>(config_.first_member),
                    keys_.lock(lock_name()), std::max<std::int64_t>(1, lease_ms() / 1000), request_timeout());
      etcd_->set_lease_clock(options_.workers.clock);
    } else if (redlock()) {
      co_await redlock_.connect(config_.host, config_.lock_ports);
      co_await redlock_renewals_.connect(config_.host, config_.lock_ports);
    } else {
      co_await lock_.connect(config_.host, config_.lock_port);
      co_await renewals_.connect(config_.host, config_.lock_port);
      if (config_.sentinel) {  // redis-failover: the primary is whoever Sentinel names
        primary_.emplace(lock_.executor(), *config_.sentinel, std::vector<AsyncRedis*>{&lock_, &renewals_});
        co_await primary_->ask(request_timeout());
        // redis-py's Sentinel client subscribes to nothing: it asks again only after a failed request.
        if (options_.workers.sentinel_discovery == model::SentinelDiscovery::kSwitchMaster) {
          asio::co_spawn(lock_.executor(), primary_->follow_switches(request_timeout()), asio::detached);
        }
      }
    }
    co_await storage_.connect(config_.host, config_.storage_port);
    // Everyone starts at the run's t = 0 (a restarted worker: at once).
    asio::steady_timer start{co_await asio::this_coro::executor};
    start.expires_at(std::chrono::steady_clock::time_point{nanoseconds{config_.start_ns + config_.begin_ns}});
    co_await start.async_wait(asio::use_awaitable);
    const std::optional<int> jobs =
        config_.jobs_left >= 0 ? std::optional{config_.jobs_left} : model::jobs_per_worker(options_.workload);
    model::JobCount count;  // this process's; its earlier ones did config_.jobs_done
    while (count.any_left(jobs)) {
      const std::optional<Held> granted = co_await acquire_until_granted();
      if (!granted) {
        ++count.given_up;
        if (model::stops_after_giving_up(options_.workload)) break;
        co_await sleep(scaled(options_.workers.between.sample(retry_rng_)));
        continue;
      }
      const Held& held = *granted;
      held_ = held;
      lease_lost_ = false;
      emit(EventKind::kHoldBegin, {{field::kLock, lock_name()}, {field::kToken, held.token}});
      if (options_.workers.renew == model::RenewMethod::kWatchdog && options_.lock.lease) {
        asio::co_spawn(lock_.executor(), renew_while_holding(held.hold), asio::detached);
      }
      const JobResult result = co_await do_job(config_.jobs_done + count.done);
      if (held_) end_hold();
      if (options_.workers.release != model::ReleaseMethod::kNone) co_await release(held);
      if (result.no_more_work) break;
      if (result.done) ++count.done;
      co_await sleep(scaled(options_.workers.between.sample(retry_rng_)));
    }
  }

 private:
  [[nodiscard]] const std::string& lock_name() const { return options_.lock.name; }
  [[nodiscard]] bool redlock() const { return options_.service.kind == model::ServiceKind::kRedlock; }
  [[nodiscard]] bool consensus() const { return options_.service.kind == model::ServiceKind::kConsensus; }

  [[nodiscard]] RedlockTiming redlock_timing() const {
    RedlockTiming timing;
    if (options_.lock.lease) timing.ttl = nanoseconds{lease_ms() * 1'000'000};
    timing.drift_factor = options_.service.drift_factor;
    timing.subtract_elapsed = options_.service.recheck_elapsed;
    timing.request_timeout = request_timeout();
    timing.clock = options_.workers.clock;
    return timing;
  }

  [[nodiscard]] const model::BillingWorkload* billing() const { return std::get_if<model::BillingWorkload>(&options_.workload); }
  [[nodiscard]] bool reads() const { return !std::holds_alternative<model::WriteOnlyWorkload>(options_.workload); }

  [[nodiscard]] nanoseconds scaled(sim::Duration duration) const { return live::scaled(duration, config_.time_scale); }
  // The lease as Redis takes it: whole milliseconds, at least one.
  [[nodiscard]] std::int64_t lease_ms() const {
    return std::max<std::int64_t>(1, scaled(*options_.lock.lease).count() / 1'000'000);
  }
  [[nodiscard]] nanoseconds request_timeout() const { return scaled(options_.service.request_timeout); }

  [[nodiscard]] std::int64_t now() const { return monotonic_ns() - config_.start_ns; }
  // Unique in the run: a restarted worker is a new process, whose count starts again.
  std::string next_call() { return fmt::format("{}/{}/{}", config_.name, ::getpid(), ++calls_); }

  // One history line on stdout, written whole with one write() so that a
  // SIGKILL never leaves half a line.
  void emit(EventKind event, Json fields, const std::string& call = {}) {
    Json line{{field::kTime, now()}, {field::kProc, config_.name}, {field::kEvent, vocabulary::event_kind_name(event)}};
    for (auto& [key, value] : fields.items()) line[key] = value;
    if (!call.empty()) line[field::kCall] = call;
    write_line(line.dump() + "\n");
    stop_if_planned(vocabulary::event_kind_name(event));
  }

  static void write_line(const std::string& text) {
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t result = ::write(STDOUT_FILENO, text.data() + written, text.size() - written);
      if (result <= 0) return;
      written += static_cast<std::size_t>(result);
    }
  }

  // A planned pause at this fault point: say so, then stop this whole
  // process for real; the coordinator sends SIGCONT when the pause is over.
  void stop_if_planned(std::string_view event) {
    const int seen = ++seen_[std::string{event}];
    for (const SelfStop& stop : config_.stops) {
      if (stop.after != event || stop.nth != seen) continue;
      write_line(Json{{field::kTime, now()},
                      {field::kProc, config_.name},
                      {field::kEvent, kLiveStop},
                      {field::kFault, stop.fault}}
                     .dump() +
                 "\n");
      ::raise(SIGSTOP);
    }
  }

  asio::awaitable<void> sleep(nanoseconds length) {
    asio::steady_timer timer{co_await asio::this_coro::executor};
    timer.expires_after(length);
    co_await timer.async_wait(asio::use_awaitable);
  }

  // One acquire's answer: the token when granted, else why not; and until
  // when this worker takes the lease to be its own, on its lease clock.
  struct Attempt {
    std::optional<std::int64_t> token;
    std::string reason;
    std::int64_t valid_until_ns = INT64_MAX;
    std::optional<EtcdLockLease> session{};  // consensus
  };

  // A lease counts from the send of the request that could set the key.
  [[nodiscard]] std::int64_t lease_end(std::int64_t sent_ns) const {
    return options_.lock.lease ? sent_ns + lease_ms() * 1'000'000 : INT64_MAX;
  }

  Attempt attempt_from(const std::optional<RespValue>& reply, std::int64_t sent_ns) const {
    if (!reply) return Attempt{std::nullopt, lock_.failure()};
    if (reply->is_error()) return Attempt{std::nullopt, error_reason(*reply)};
    if (reply->item_integer(0) != 1) return Attempt{std::nullopt, reason::kHeld};
    return Attempt{reply->item_integer(1), "", lease_end(sent_ns)};
  }

  // The model's reason for an error reply: a primary short of replicas, a demoted one, a full one.
  static std::string error_reason(const RespValue& reply) {
    if (reply.text.starts_with("NOREPLICAS")) return reason::kNoReplicas;
    if (reply.text.starts_with("READONLY")) return reason::kReadOnly;
    if (reply.text.starts_with("OOM")) return reason::kOutOfMemory;
    return reason::kError;
  }

  // workers.wait_replicas: WAIT after the grant; too few replicas
  // acknowledged it, and the grant is given back (compare-and-delete) and
  // not used, as the model's client does (Redisson's checkLockSyncedSlaves).
  asio::awaitable<Attempt> replicated_or_given_back(Attempt attempt, std::string value) {
    const model::WaitReplicas& wait = *options_.workers.wait_replicas;
    const nanoseconds timeout = scaled(wait.timeout);
    const std::int64_t timeout_ms = std::max<std::int64_t>(1, timeout.count() / 1'000'000);
    std::vector<std::string> command{"WAIT", std::to_string(wait.replicas), std::to_string(timeout_ms)};
    const std::optional<RespValue> acknowledged = co_await lock_.command(std::move(command), timeout + request_timeout());
    if (acknowledged && !acknowledged->is_error() && acknowledged->integer >= wait.replicas) co_return attempt;
    std::vector<std::string> give_back = release_arguments(value, next_call(), false);
    (void)co_await lock_.command(std::move(give_back), request_timeout());
    co_return Attempt{std::nullopt, reason::kNotReplicated};
  }

  // A pause planned before the reply is taken here, the request written.
  [[nodiscard]] std::function<void()> stop_when_sent() {
    return [this] { stop_if_planned(kAcquireSent); };
  }

  // set-nx-px: one SET NX PX (and INCR) in one script.
  asio::awaitable<Attempt> set_if_absent(std::string value, std::string lease, std::string call) {
    const std::int64_t sent_ns = lease_clock_ns(options_.workers.clock);
    // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
    std::vector<std::string> arguments = acquire_arguments(value, lease, call);
    const std::optional<RespValue> reply = co_await lock_.command(std::move(arguments), request_timeout(), stop_when_sent());
    Attempt attempt = attempt_from(reply, sent_ns);
    if (attempt.token && options_.workers.wait_replicas) attempt = co_await replicated_or_given_back(attempt, value);
    co_return attempt;
  }

  [[nodiscard]] std::vector<std::string> acquire_arguments(const std::string& value, const std::string& lease,
                                                           const std::string& call) const {
    return {"EVAL", std::string{kAcquireScript}, "4", keys_.lock(lock_name()), keys_.token_counter(lock_name()),
            keys_.sequence(), keys_.log(), value, lease, config_.name, call};
  }

  // Redlock (redlock_client.h): the same script on every instance at once;
  // a failed round gives back what it got, under the same call.
  asio::awaitable<Attempt> redlock_acquire(std::string value, std::string lease, std::string call) {
    std::vector<std::string> arguments = acquire_arguments(value, lease, call);
    std::vector<std::string> give_back = release_arguments(value, call, false);
    const RedlockOutcome outcome = co_await redlock_.acquire(std::move(arguments), std::move(give_back), stop_when_sent());
    if (!outcome.ok) co_return Attempt{std::nullopt, outcome.reason};
    co_return Attempt{outcome.token, "", outcome.valid_until_ns};
  }

  // consensus: etcd's Mutex under the model's client rules (etcd_lock_client.h).
  asio::awaitable<Attempt> consensus_acquire() {
    const EtcdAcquireOutcome outcome = co_await etcd_->acquire(config_.name);
    if (!outcome.lease) co_return Attempt{std::nullopt, outcome.reason};
    co_return Attempt{outcome.lease->token, "", outcome.lease->valid_until_ns, outcome.lease};
  }

  // get-then-set (H9), as the model's client: GET, and only if the key is
  // empty a plain SET PX — two round trips, between which another worker may
  // do the same. The grant is logged by the SET's script.
  asio::awaitable<Attempt> get_then_set(std::string value, std::string lease, std::string call) {
    std::vector<std::string> get{"GET", keys_.lock(lock_name())};
    const std::optional<RespValue> current = co_await lock_.command(std::move(get), request_timeout());
    if (!current || current->is_error()) co_return attempt_from(current, lease_clock_ns(options_.workers.clock));
    if (current->type != RespValue::Type::kNil) co_return Attempt{std::nullopt, reason::kHeld};
    const std::int64_t sent_ns = lease_clock_ns(options_.workers.clock);
    // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
    std::vector<std::string> set{"EVAL", std::string{kPlainSetScript}, "4", keys_.lock(lock_name()),
        keys_.token_counter(lock_name()), keys_.sequence(), keys_.log(), value, lease, config_.name, call};
    const std::optional<RespValue> reply = co_await lock_.command(std::move(set), request_timeout());
    Attempt attempt = attempt_from(reply, sent_ns);
    // As the model's client: WAIT follows the SET whichever way it was sent.
    if (attempt.token && options_.workers.wait_replicas) attempt = co_await replicated_or_given_back(attempt, value);
    co_return attempt;
  }

  // The lease, or nullopt when the job is given up (workers.max_tries, acquire_timeout).
  asio::awaitable<std::optional<Held>> acquire_until_granted() {
    const std::int64_t started = monotonic_ns();
    std::int64_t tries = 0;
    while (true) {
      const std::string value = fmt::format("{}#{}", config_.name, ++acquisitions_);
      const std::string call = next_call();
      const std::string lease = options_.lock.lease ? std::to_string(lease_ms()) : std::string{};
      emit(EventKind::kAcquireInvoke, {{field::kLock, lock_name()}}, call);
      // Not a co_await inside ?: — with GCC 12 that aborted in free() (see sim/task.h on GCC 12 and co_await).
      Attempt attempt;
      if (consensus()) {
        attempt = co_await consensus_acquire();
      } else if (redlock()) {
        attempt = co_await redlock_acquire(value, lease, call);
      } else if (options_.workers.acquire == model::AcquireMethod::kGetThenSet) {
        attempt = co_await get_then_set(value, lease, call);
      } else {
        attempt = co_await set_if_absent(value, lease, call);
      }
      if (attempt.token) {
        Json fields{{field::kLock, lock_name()}, {field::kToken, *attempt.token}};
        if (options_.lock.lease) fields[field::kLeaseNs] = lease_ms() * 1'000'000;
        emit(EventKind::kAcquireOk, fields, call);
        co_return Held{*attempt.token, value, attempt.valid_until_ns, ++holds_, attempt.session};
      }
      emit(EventKind::kAcquireFail, {{field::kLock, lock_name()}, {field::kReason, attempt.reason}}, call);
      const std::optional<sim::Duration> timeout = options_.workers.acquire_timeout;
      const model::AfterFailedAcquire next = model::after_failed_acquire(
          options_.workers.max_tries, timeout ? std::optional{as_duration(scaled(*timeout))} : std::nullopt, ++tries,
          sim::Duration::nanoseconds(monotonic_ns() - started),
          as_duration(scaled(options_.workers.retry.sample(retry_rng_))));
      if (next.give_up != nullptr) {
        emit(EventKind::kAcquireGiveUp,
             {{field::kLock, lock_name()}, {field::kReason, next.give_up}, {field::kTries, tries}});
        co_return std::nullopt;
      }
      if (primary_ && attempt.reason != reason::kHeld) co_await primary_->ask(request_timeout());
      co_await sleep(nanoseconds{next.wait.count_ns()});
    }
  }

  static sim::Duration as_duration(nanoseconds length) { return sim::Duration::nanoseconds(length.count()); }

  [[nodiscard]] bool lease_ran_out() const {
    return held_ && lease_clock_ns(options_.workers.clock) >= held_->valid_until_ns;
  }

  void end_hold() {
    emit(EventKind::kHoldEnd, {{field::kLock, lock_name()},
                               {field::kToken, held_->token},
                               {field::kReason, model::hold_end_reason(lease_lost_, lease_ran_out())}});
    held_.reset();
  }

  [[nodiscard]] std::optional<std::int64_t> token_to_send() const {
    if (config_.fencing != model::Fencing::kOn || !held_) return std::nullopt;
    return held_->token;
  }

  // One job under the hold; `done`: the jobs this worker did before it (all its processes).
  asio::awaitable<JobResult> do_job(int done) {
    const std::string& key = model::workload_key(options_.workload);
    std::optional<std::int64_t> observed;  // none for write-only: no read
    if (reads()) {
      const std::string call = next_call();
      emit(EventKind::kReadInvoke, {{field::kKey, key}}, call);
      const bool fenced = config_.fencing == model::Fencing::kOn && options_.storage.fence_reads;
      const std::optional<std::int64_t> token = fenced ? token_to_send() : std::nullopt;
      // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
      std::vector<std::string> arguments{"EVAL", std::string{kStorageReadScript}, "4", keys_.data(key), keys_.highest_token(key), keys_.sequence(),
           keys_.log(), key, config_.name, token ? std::to_string(*token) : "", fenced ? "1" : "0", call};
      const std::optional<RespValue> reply = co_await storage_.command(std::move(arguments), request_timeout());
      // Like the model: a read without an answer, or turned away, leaves its
      // read.invoke without a completion.
      if (!reply || reply->is_error() || reply->item_integer(0) != 1) co_return JobResult{};
      observed = reply->item_integer(1);
      emit(EventKind::kReadOk, {{field::kKey, key}, {field::kValue, *observed}}, call);
    }
    std::optional<model::WriteIntent> intent =
        model::write_intent(options_, config_.name, observed, done, attempt_keys_);
    if (!intent) co_return JobResult{true, true};  // every customer billed

    co_await sleep(scaled(options_.workers.work.sample(work_rng_)));
    if (model::skips_write(options_.workers, lease_lost_, lease_ran_out())) co_return JobResult{};
    if (billing() != nullptr && billing()->charge == model::Charge::kExternal) {
      // Step one, the charge, goes to payments with the key; step two, mark
      // done, is the cursor write, with no job and no key (as the model).
      if (!co_await charge_externally(*intent->job, intent->request_id)) co_return JobResult{};
      intent->request_id.reset();
      intent->job.reset();
    }
    const std::int64_t value = intent->value;
    const std::optional<std::string>& request_id = intent->request_id;
    const std::optional<std::int64_t>& job = intent->job;

    const std::string call = next_call();
    const std::optional<std::int64_t> token = token_to_send();
    Json fields{{field::kKey, key}, {field::kValue, value}};
    if (token) fields["token"] = *token;
    if (request_id) fields["request_id"] = *request_id;
    if (job) fields["job"] = *job;
    emit(EventKind::kWriteInvoke, fields, call);
    // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
    std::vector<std::string> arguments{"EVAL", std::string{kStorageWriteScript}, "5", keys_.data(key), keys_.highest_token(key), keys_.sequence(),
         keys_.log(), keys_.request(request_id.value_or("")), key, config_.name, std::to_string(value),
         token ? std::to_string(*token) : "", config_.fencing == model::Fencing::kOn ? "1" : "0",
         request_id.value_or(""), options_.storage.idempotency_keys ? "1" : "0", call,
         job ? std::to_string(*job) : ""};
    const std::optional<RespValue> reply = co_await storage_.command(std::move(arguments), request_timeout());
    if (!reply || reply->is_error()) {
      emit(EventKind::kWriteFail, {{field::kReason, !reply ? storage_.failure() : reason::kError}}, call);
      co_return JobResult{};
    }
    if (reply->item_integer(0) != 1) {
      emit(EventKind::kWriteFail,
           {{field::kReason, reply->items.size() > 1 ? reply->items[1].text : reason::kRejected}}, call);
      co_return JobResult{};
    }
    emit(EventKind::kWriteOk, Json::object(), call);
    co_return JobResult{true, false};
  }

  // Billing's external charge (payments_script.h): true if the customer stands
  // charged (charged now, or a repeated key answered with the first result).
  asio::awaitable<bool> charge_externally(std::int64_t customer, std::optional<std::string> request_id) {
    const std::string call = next_call();
    const std::optional<std::int64_t> token = token_to_send();
    Json fields{{field::kJob, customer}};
    if (request_id) fields["request_id"] = *request_id;
    if (token) fields["token"] = *token;
    emit(EventKind::kEffectInvoke, fields, call);
    // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
    std::vector<std::string> arguments{"EVAL", std::string{kPaymentsChargeScript}, "3", keys_.sequence(), keys_.log(),
        keys_.payment_request(request_id.value_or("")), std::to_string(customer), config_.name, request_id.value_or(""),
        token ? std::to_string(*token) : "", options_.storage.idempotency_keys ? "1" : "0", call};
    const std::optional<RespValue> reply = co_await storage_.command(std::move(arguments), request_timeout());
    if (!reply || reply->is_error()) {
      // The charge may still land: the worker cannot know, so the job is redone.
      emit(EventKind::kEffectFail, {{field::kReason, !reply ? storage_.failure() : reason::kError}}, call);
      co_return false;
    }
    emit(EventKind::kEffectOk, reply->item_integer(1) == 1 ? Json{{field::kReplayed, true}} : Json::object(), call);
    co_return true;
  }

  asio::awaitable<void> renew_while_holding(std::uint64_t hold) {
    const nanoseconds lease = scaled(*options_.lock.lease);
    const nanoseconds every = options_.workers.renew_every ? scaled(*options_.workers.renew_every) : lease / 3;
    while (true) {
      co_await sleep(every);
      if (!holding(hold)) co_return;
      const Renewal renewal = co_await renew_once(hold);
      if (!holding(hold)) co_return;
      if (!renewal.ok) {
        emit(EventKind::kRenewFail, {{field::kReason, renewal.reason}}, renewal.call);
        if (model::renews_again_after(options_.workers, renewal.reason)) continue;
        lease_lost_ = true;
        co_return;
      }
      held_->valid_until_ns = renewal.valid_until_ns;
      emit(EventKind::kRenewOk, {{field::kToken, held_->token}, {field::kLeaseNs, lease_ms() * 1'000'000}}, renewal.call);
    }
  }

  // One period's renewal: renew.invoke, and for a Redis renewal whose answer
  // did not come in time, renew.fail and renew.invoke again for each re-send
  // (workers.renew_retries); the caller records how the last one ended.
  struct Renewal {
    bool ok = false;
    std::string reason;
    std::int64_t valid_until_ns = 0;
    std::string call;
  };
  asio::awaitable<Renewal> renew_once(std::uint64_t hold) {
    const bool plain = options_.workers.renew_command == model::RenewCommand::kPlainPexpire;
    int resends_left = options_.workers.renew_retries;
    while (true) {
      Renewal renewal;
      renewal.call = next_call();
      emit(EventKind::kRenewInvoke, {{field::kLock, lock_name()}, {field::kToken, held_->token}}, renewal.call);
      if (consensus()) {  // the client asks the next member itself (etcd_lock_client.h)
        const EtcdLockLease session = *held_->session;
        const EtcdRenewOutcome outcome = co_await etcd_->renew(session);
        renewal.ok = outcome.renewed;
        renewal.reason = outcome.reason;
        renewal.valid_until_ns = outcome.valid_until_ns;
        co_return renewal;
      }
      const std::int64_t sent_ns = lease_clock_ns(options_.workers.clock);
      // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
      std::vector<std::string> arguments{"EVAL", std::string{kRenewScript}, "3", keys_.lock(lock_name()), keys_.sequence(), keys_.log(), held_->value,
           std::to_string(lease_ms()), config_.name, renewal.call, plain ? "1" : "0"};
      if (redlock()) {
        const RedlockOutcome outcome = co_await redlock_renewals_.renew(std::move(arguments));
        renewal.ok = outcome.ok;
        renewal.reason = outcome.reason;
        renewal.valid_until_ns = outcome.valid_until_ns;
        co_return renewal;
      }
      const std::optional<RespValue> reply = co_await renewals_.command(std::move(arguments), request_timeout());
      renewal.ok = reply && !reply->is_error() && reply->item_integer(0) == 1;
      if (!renewal.ok) renewal.reason = !reply ? renewals_.failure() : reply->is_error() ? error_reason(*reply) : reason::kNotHeld;
      if (primary_ && (!reply || reply->is_error())) co_await primary_->ask(request_timeout());
      renewal.valid_until_ns = sent_ns + lease_ms() * 1'000'000;
      if (renewal.ok || resends_left == 0 || !model::resends_renewal_after(options_.service.kind, renewal.reason) ||
          !holding(hold)) {
        co_return renewal;
      }
      emit(EventKind::kRenewFail, {{field::kReason, renewal.reason}}, renewal.call);
      --resends_left;
      co_await sleep(scaled(options_.workers.renew_retry_delay.sample(retry_rng_)));
      if (!holding(hold)) co_return renewal;
    }
  }

  [[nodiscard]] bool holding(std::uint64_t hold) const { return held_ && held_->hold == hold; }

  asio::awaitable<void> release(const Held& held) {
    const std::string call = next_call();
    emit(EventKind::kReleaseInvoke, {{field::kLock, lock_name()}, {field::kToken, held.token}}, call);
    if (consensus()) {
      const EtcdReleaseOutcome outcome = co_await etcd_->release(*held.session);
      if (outcome.released) {
        emit(EventKind::kReleaseOk, Json::object(), call);
      } else {
        emit(EventKind::kReleaseFail, {{field::kReason, outcome.reason}}, call);
      }
      co_return;
    }
    const bool plain = options_.workers.release == model::ReleaseMethod::kPlainDelete;
    // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
    std::vector<std::string> arguments = release_arguments(held.value, call, plain);
    if (redlock()) {
      // Fewer than a quorum deleted: the lock was no longer this worker's.
      const RedlockOutcome outcome = co_await redlock_.release(std::move(arguments));
      if (outcome.ok) {
        emit(EventKind::kReleaseOk, Json::object(), call);
      } else {
        emit(EventKind::kReleaseFail, {{field::kReason, outcome.reason}}, call);
      }
      co_return;
    }
    const std::optional<RespValue> reply = co_await lock_.command(std::move(arguments), request_timeout());
    if (reply && !reply->is_error() && reply->item_integer(0) == 1) {
      emit(EventKind::kReleaseOk, Json::object(), call);
    } else {
      emit(EventKind::kReleaseFail, {{field::kReason, !reply ? lock_.failure() : reason::kNotHeld}}, call);
      if (primary_ && (!reply || reply->is_error())) co_await primary_->ask(request_timeout());
    }
  }

  // The release script's arguments: compare-and-delete of `value`, or (plain) DEL of whatever is there.
  [[nodiscard]] std::vector<std::string> release_arguments(const std::string& value, const std::string& call,
                                                           bool plain) const {
    return {"EVAL", std::string{kReleaseScript}, "3", keys_.lock(lock_name()), keys_.sequence(), keys_.log(), value,
            config_.name, call, plain ? "1" : "0"};
  }

  const WorkerConfig& config_;
  const model::SystemOptions& options_;  // the scenario's, which outlives the worker
  LiveKeys keys_;
  AsyncRedis lock_;
  AsyncRedis renewals_;
  AsyncRedis storage_;
  RedlockClient redlock_;           // Redlock: the job loop's connections to every instance
  RedlockClient redlock_renewals_;  // and the watchdog's
  std::optional<PrimaryFinder> primary_;  // redis-failover: Sentinel names the primary
  std::optional<EtcdLockClient> etcd_;    // consensus: the lock's client of the etcd cluster
  sim::RandomStreams streams_;
  sim::Rng work_rng_{0};
  sim::Rng retry_rng_{0};
  std::optional<Held> held_;
  bool lease_lost_ = false;
  std::uint64_t acquisitions_ = 0;
  std::uint64_t holds_ = 0;
  std::uint64_t calls_ = 0;
  std::uint64_t attempt_keys_ = 0;  // idempotency keys per attempt handed out (model/client_rules.h)
  std::map<std::string, int> seen_;  // events emitted so far, by name (for self-stops)
};

}  // namespace

int run_live_worker(const WorkerConfig& config) {
  const scenario::Scenario scenario = scenario::load_scenario_file(config.scenario_file);
  asio::io_context io;
  Worker worker{config, scenario, io.get_executor()};
  std::exception_ptr failure;
  asio::co_spawn(io, worker.run(), [&](std::exception_ptr error) {
    failure = error;
    io.stop();
  });
  io.run();
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "locksim live worker %s: %s\n", config.name.c_str(), error.what());
      return 1;
    }
  }
  return 0;
}

}  // namespace locksim::live
