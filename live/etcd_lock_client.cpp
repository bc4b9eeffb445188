#include "live/etcd_lock_client.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "live/monotonic_clock.h"
#include "model/client_rules.h"
#include "sim/assert.h"
#include "vocabulary/reason.h"

namespace locksim::live {

namespace reason = vocabulary::reason;
using std::chrono::nanoseconds;

namespace {

bool lease_not_found(const EtcdGateway& gateway) {
  return gateway.failure() == reason::kError &&
         gateway.error_message().find("requested lease not found") != std::string::npos;
}

// What is left until `deadline_ns` (monotonic), at least 1 ms: a call
// needs a positive timeout, and one made that late fails as a timeout or,
// at worst, is answered a millisecond past the deadline.
nanoseconds until(std::int64_t deadline_ns) {
  return std::max(nanoseconds{deadline_ns - monotonic_ns()}, nanoseconds{std::chrono::milliseconds{1}});
}

}  // namespace

// --- The client's parts.

struct EtcdLockClient::Member {
  Member(const asio::any_io_executor& executor, const std::string& client_endpoint)
      : endpoint{client_endpoint}, calls{executor, client_endpoint}, renewals{executor, client_endpoint} {}
  std::string endpoint;
  EtcdGateway calls;     // acquire's, release's and giving up's requests
  EtcdGateway renewals;  // renew's: a renewal never waits behind them
};

// One round of an attempt (the model's one request), on the monotonic clock.
struct EtcdLockClient::Round {
  std::int64_t wait_until_ns = 0;  // it stops waiting for its turn here
  std::int64_t answer_by_ns = 0;   // wait_until_ns + request_timeout: no answer by then is none
  nanoseconds request_timeout;

  // Each request of the round gets request_timeout, within the round's whole.
  [[nodiscard]] nanoseconds call_timeout() const { return std::min(request_timeout, until(answer_by_ns)); }
};

// My place in the queue, as far as the attempt has got.
struct EtcdLockClient::Waiter {
  std::int64_t session = 0;  // the lease; 0: none granted (yet)
  std::string key;
  std::int64_t revision = 0;  // my key's create revision; 0: not put (yet)
};

enum class EtcdLockClient::Answer { kGranted, kWaiting, kSessionGone, kUnanswered };

struct EtcdLockClient::RoundResult {
  Answer answer = Answer::kWaiting;
  std::string failure;  // kUnanswered: why (the gateway's failure)
};

struct EtcdLockClient::Unlocked {
  bool answered = false;
  bool session_existed = false;
  std::string failure;  // when not answered
};

EtcdLockClient::EtcdLockClient(asio::any_io_executor executor, std::vector<std::string> endpoints, std::size_t first,
                               std::string lock, std::int64_t ttl_seconds, nanoseconds request_timeout)
    : executor_{std::move(executor)},
      member_{0},
      prefix_{std::move(lock) + "/"},
      ttl_seconds_{ttl_seconds},
      poll_every_{model::consensus_poll_interval(sim::Duration::seconds(ttl_seconds),
                                                 sim::Duration::nanoseconds(request_timeout.count()))
                      .count_ns()},
      request_timeout_{request_timeout} {
  LOCKSIM_ASSERT(!endpoints.empty(), "an etcd lock client needs a member to talk to");
  LOCKSIM_ASSERT(ttl_seconds >= 1, "etcd takes a session's TTL in whole seconds, at least one");
  for (const std::string& endpoint : endpoints) members_.push_back(std::make_unique<Member>(executor_, endpoint));
  member_ = first % members_.size();
}

EtcdLockClient::~EtcdLockClient() = default;

std::int64_t EtcdLockClient::valid_until(std::int64_t sent_at_ns) const {
  return sent_at_ns + ttl_seconds_ * 1'000'000'000;
}

std::string EtcdLockClient::key_of(std::int64_t session) const { return fmt::format("{}{:x}", prefix_, session); }

asio::awaitable<EtcdAcquireOutcome> EtcdLockClient::acquire(std::string owner) {
  // Giving up is a timeout (monotonic clock); the lease belief is on the lease clock.
  const std::int64_t give_up_at = monotonic_ns() + request_timeout_.count();
  Waiter waiter;
  bool first_round = true;
  while (true) {
    const std::int64_t sent_at = lease_clock_ns(lease_clock_);
    const std::int64_t now = monotonic_ns();
    const std::int64_t wait = std::clamp<std::int64_t>(give_up_at - now, 0, poll_every_.count());
    const Round round{now + wait, now + wait + request_timeout_.count(), request_timeout_};
    // Not a co_await inside ?: (GCC 12; sim/task.h).
    RoundResult result;
    if (first_round) {
      std::pair<Waiter, RoundResult> opened = co_await open_and_queue(owner, round);
      waiter = std::move(opened.first);
      result = std::move(opened.second);
    } else {
      result = co_await poll(round, waiter);
    }
    if (result.answer == Answer::kUnanswered && !first_round && members_.size() > 1 && monotonic_ns() < give_up_at) {
      next_member();  // the key is queued whichever member answers: ask again there
      continue;
    }
    if (result.answer == Answer::kUnanswered) {
      if (members_.size() > 1) next_member();
      co_await give_up(waiter);
      co_return EtcdAcquireOutcome{std::nullopt, result.failure};
    }
    first_round = false;
    if (result.answer == Answer::kGranted) {
      EtcdLockLease lease{waiter.revision, waiter.session, waiter.key, valid_until(sent_at)};
      co_return EtcdAcquireOutcome{std::move(lease), {}};
    }
    if (result.answer == Answer::kSessionGone) co_return EtcdAcquireOutcome{std::nullopt, reason::kSessionExpired};
    if (monotonic_ns() >= give_up_at) {
      co_await give_up(waiter);
      co_return EtcdAcquireOutcome{std::nullopt, reason::kHeld};
    }
  }
}

asio::awaitable<std::pair<EtcdLockClient::Waiter, EtcdLockClient::RoundResult>> EtcdLockClient::open_and_queue(
    std::string owner, Round round) {
  using Opened = std::pair<Waiter, RoundResult>;
  EtcdGateway& gateway = member().calls;
  const std::optional<EtcdLease> lease = co_await gateway.grant_lease(ttl_seconds_, round.call_timeout());
  if (!lease) co_return Opened{Waiter{}, RoundResult{Answer::kUnanswered, gateway.failure()}};
  Waiter waiter{lease->id, key_of(lease->id), 0};
  // The key holds the worker's name, where the Mutex's is empty, so that
  // whoever reads or watches the prefix can tell whose key it is; its order
  // and revisions are the Mutex's.
  const std::optional<EtcdLockStep> step =
      co_await gateway.lock_step(waiter.key, std::move(owner), waiter.session, prefix_, round.call_timeout());
  if (!step) co_return Opened{waiter, RoundResult{Answer::kUnanswered, gateway.failure()}};
  waiter.revision = step->my_create_revision;
  if (step->owner && step->owner->create_revision == waiter.revision) {
    co_return Opened{waiter, RoundResult{Answer::kGranted, {}}};
  }
  RoundResult result = co_await wait_for_turn(round, waiter);
  co_return Opened{std::move(waiter), std::move(result)};
}

asio::awaitable<EtcdLockClient::RoundResult> EtcdLockClient::poll(Round round, Waiter waiter) {
  // The waiting session's keep-alive, as the Session's background one every TTL/3.
  EtcdGateway& gateway = member().calls;
  const std::optional<std::int64_t> ttl = co_await gateway.keep_lease_alive(waiter.session, round.call_timeout());
  if (!ttl) co_return RoundResult{Answer::kUnanswered, gateway.failure()};
  if (*ttl <= 0) co_return RoundResult{Answer::kSessionGone, {}};
  co_return co_await wait_for_turn(round, waiter);
}

asio::awaitable<EtcdLockClient::RoundResult> EtcdLockClient::wait_for_turn(Round round, Waiter waiter) {
  LOCKSIM_ASSERT(waiter.revision > 1, "a key in the queue has a create revision above the store's first");
  while (true) {
    EtcdGateway& gateway = member().calls;
    // waitDeletes: the newest key created before mine (WithLastCreate, WithMaxCreateRev).
    EtcdPrefixQuery below{prefix_, CreateOrder::kNewestFirst, 1, waiter.revision - 1};
    const std::optional<EtcdRange> found = co_await gateway.range(std::move(below), round.call_timeout());
    if (!found) co_return RoundResult{Answer::kUnanswered, gateway.failure()};
    if (found->key_values.empty()) co_return co_await my_key_still_there(round, waiter);
    std::optional<RoundResult> not_deleted =
        co_await watch_delete(round, found->key_values.front().key, found->header_revision);
    if (not_deleted) co_return *not_deleted;
  }
}

asio::awaitable<std::optional<EtcdLockClient::RoundResult>> EtcdLockClient::watch_delete(Round round, std::string key,
                                                                                        std::int64_t revision) {
  if (monotonic_ns() >= round.wait_until_ns) co_return RoundResult{Answer::kWaiting, {}};
  EtcdWatch watch{executor_, member().endpoint};
  // From the revision after the range's: a delete in between is not missed.
  if (!co_await watch.start(key, revision + 1, round.call_timeout())) {
    co_return RoundResult{Answer::kUnanswered, watch.failure()};
  }
  while (monotonic_ns() < round.wait_until_ns) {
    const std::optional<EtcdEvent> event = co_await watch.next_event(until(round.wait_until_ns));
    if (event && event->kind == EtcdEvent::Kind::kDelete) co_return std::nullopt;
    if (!event && watch.failure() != reason::kTimeout) co_return RoundResult{Answer::kUnanswered, watch.failure()};
  }
  co_return RoundResult{Answer::kWaiting, {}};
}

asio::awaitable<EtcdLockClient::RoundResult> EtcdLockClient::my_key_still_there(Round round, Waiter waiter) {
  // v3.5.0's fix of H15: with no key left below mine, mine must still be
  // there; an expired session's key is gone and the lock is not mine.
  EtcdGateway& gateway = member().calls;
  EtcdPrefixQuery mine{waiter.key, CreateOrder::kOldestFirst, 0, waiter.revision};
  const std::optional<EtcdRange> found = co_await gateway.range(std::move(mine), round.call_timeout());
  if (!found) co_return RoundResult{Answer::kUnanswered, gateway.failure()};
  // The query is by prefix: a longer lease ID's key may come along; only mine counts.
  const std::vector<EtcdKeyValue>& keys = found->key_values;
  const bool there = std::any_of(keys.begin(), keys.end(), [&waiter](const EtcdKeyValue& key_value) {
    return key_value.key == waiter.key && key_value.create_revision == waiter.revision;
  });
  co_return RoundResult{there ? Answer::kGranted : Answer::kSessionGone, {}};
}

asio::awaitable<EtcdLockClient::Unlocked> EtcdLockClient::unlock(std::string key, std::int64_t session) {
  // Mutex.Unlock then Session.Close, as the model's one unlock request: one request_timeout for both.
  const std::int64_t answer_by = monotonic_ns() + request_timeout_.count();
  EtcdGateway& gateway = member().calls;
  const std::optional<std::int64_t> deleted = co_await gateway.delete_key(key, until(answer_by));
  if (!deleted) co_return Unlocked{false, false, gateway.failure()};
  if (co_await gateway.revoke_lease(session, until(answer_by))) co_return Unlocked{true, true, {}};
  if (lease_not_found(gateway)) co_return Unlocked{true, false, {}};
  co_return Unlocked{false, false, gateway.failure()};
}

asio::awaitable<void> EtcdLockClient::give_up(Waiter waiter) {
  // A lease whose grant went unanswered has no key; its ID is unknown, so
  // it runs out by its TTL.
  if (waiter.session == 0) co_return;
  (void)co_await unlock(waiter.key, waiter.session);
}

asio::awaitable<EtcdRenewOutcome> EtcdLockClient::renew(EtcdLockLease lease) {
  const std::int64_t sent_at = lease_clock_ns(lease_clock_);
  std::string failure = reason::kTimeout;
  for (std::size_t tried = 0; tried < members_.size(); ++tried) {
    EtcdGateway& gateway = member().renewals;
    const std::optional<std::int64_t> ttl = co_await gateway.keep_lease_alive(lease.session, request_timeout_);
    if (ttl && *ttl <= 0) co_return EtcdRenewOutcome{false, 0, reason::kSessionExpired};
    if (ttl) co_return EtcdRenewOutcome{true, valid_until(sent_at), {}};
    failure = gateway.failure();
    if (members_.size() > 1) next_member();
  }
  co_return EtcdRenewOutcome{false, 0, failure};
}

asio::awaitable<EtcdReleaseOutcome> EtcdLockClient::release(EtcdLockLease lease) {
  std::string failure = reason::kTimeout;
  for (std::size_t tried = 0; tried < members_.size(); ++tried) {
    const Unlocked unlocked = co_await unlock(lease.key, lease.session);
    if (unlocked.answered && unlocked.session_existed) co_return EtcdReleaseOutcome{true, {}};
    if (unlocked.answered) co_return EtcdReleaseOutcome{false, reason::kSessionExpired};
    failure = unlocked.failure;
    if (members_.size() > 1) next_member();
  }
  co_return EtcdReleaseOutcome{false, failure};
}

}  // namespace locksim::live
