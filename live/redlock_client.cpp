#include "live/redlock_client.h"

#include <algorithm>
#include <climits>

#include "live/monotonic_clock.h"
#include "model/client_rules.h"
#include "vocabulary/reason.h"

namespace locksim::live {

namespace reason = vocabulary::reason;

namespace {

using std::chrono::nanoseconds;

// The replies of one round as they come in; the waiter's timer is cancelled by the last.
struct Round {
  Round(asio::any_io_executor executor, std::size_t instances, std::function<void()> when_all_sent)
      : all_in{executor}, replies(instances), waiting{instances}, unsent{instances}, on_all_sent{std::move(when_all_sent)} {}
  asio::steady_timer all_in;
  std::vector<std::optional<RespValue>> replies;
  std::size_t waiting;
  std::size_t unsent;  // requests not yet written (or failed before they were)
  std::function<void()> on_all_sent;

  void one_sent() {
    if (--unsent == 0 && on_all_sent) on_all_sent();
  }
};

asio::awaitable<void> ask(AsyncRedis& connection, std::vector<std::string> arguments, nanoseconds timeout,
                          std::shared_ptr<Round> round, std::size_t index) {
  bool sent = false;
  const std::function<void()> mark_sent = [&sent, round] {
    sent = true;
    round->one_sent();
  };
  round->replies[index] = co_await connection.command(std::move(arguments), timeout, mark_sent);
  if (!sent) round->one_sent();  // never written (no connection): nothing more to wait for
  if (--round->waiting == 0) round->all_in.cancel();
}

bool said_yes(const std::optional<RespValue>& reply) {
  return reply && !reply->is_error() && reply->item_integer(0) == 1;
}

}  // namespace

RedlockClient::RedlockClient(asio::any_io_executor executor, RedlockTiming timing)
    : executor_{std::move(executor)}, timing_{timing} {}

asio::awaitable<void> RedlockClient::connect(std::string host, std::vector<int> ports) {
  for (const int port : ports) {
    connections_.push_back(std::make_unique<AsyncRedis>(executor_));
    co_await connections_.back()->connect(host, port);
  }
}

nanoseconds RedlockClient::per_request_timeout() const {
  if (!timing_.ttl) return timing_.request_timeout;
  return std::min(timing_.request_timeout, *timing_.ttl / 10);
}

nanoseconds RedlockClient::validity_after(nanoseconds elapsed) const {
  if (!timing_.ttl) return nanoseconds::max();
  // The model's rule (model/client_rules.h), on this process's clock; the 2 ms are not scaled.
  return nanoseconds{model::redlock_validity(sim::Duration::nanoseconds(timing_.ttl->count()),
                                             sim::Duration::nanoseconds(elapsed.count()), timing_.drift_factor,
                                             timing_.subtract_elapsed)
                         .count_ns()};
}

std::int64_t RedlockClient::valid_until(std::int64_t started_ns) const {
  // start + TTL − drift (redsync, node-redlock): the round's time is taken off once, by counting from its start.
  return timing_.ttl ? started_ns + validity_after(nanoseconds::zero()).count() : INT64_MAX;
}

asio::awaitable<std::vector<std::optional<RespValue>>> RedlockClient::on_every_instance(
    std::vector<std::string> arguments, std::function<void()> on_all_sent) {
  auto round = std::make_shared<Round>(executor_, connections_.size(), std::move(on_all_sent));
  round->all_in.expires_at(asio::steady_timer::time_point::max());
  for (std::size_t index = 0; index < connections_.size(); ++index) {
    asio::co_spawn(executor_, ask(*connections_[index], arguments, per_request_timeout(), round, index), asio::detached);
  }
  // Each request ends by its own timeout, so this wait ends too.
  if (round->waiting > 0) {
    boost::system::error_code cancelled;
    co_await round->all_in.async_wait(asio::redirect_error(asio::use_awaitable, cancelled));
  }
  co_return std::move(round->replies);
}

asio::awaitable<RedlockOutcome> RedlockClient::acquire(std::vector<std::string> acquire, std::vector<std::string> release,
                                                       std::function<void()> on_all_sent) {
  const std::int64_t started = lease_clock_ns(timing_.clock);
  const std::vector<std::optional<RespValue>> replies = co_await on_every_instance(std::move(acquire), std::move(on_all_sent));
  int grants = 0;
  std::int64_t highest_token = 0;
  for (const std::optional<RespValue>& reply : replies) {
    if (!said_yes(reply)) continue;
    ++grants;
    highest_token = std::max(highest_token, reply->item_integer(1));
  }
  const nanoseconds validity = validity_after(nanoseconds{lease_clock_ns(timing_.clock) - started});
  if (grants >= quorum() && validity > nanoseconds::zero()) {
    const RedlockOutcome granted{true, highest_token, valid_until(started), {}};
    co_return granted;
  }
  // Unlock everywhere, including instances whose grant was lost on the way
  // back; otherwise they would stay locked for the whole TTL.
  (void)co_await on_every_instance(std::move(release));
  const RedlockOutcome refused{false, 0, 0, grants >= quorum() ? reason::kValidityElapsed : reason::kNoQuorum};
  co_return refused;
}

asio::awaitable<RedlockOutcome> RedlockClient::renew(std::vector<std::string> extend) {
  const std::int64_t started = lease_clock_ns(timing_.clock);
  const std::vector<std::optional<RespValue>> replies = co_await on_every_instance(std::move(extend));
  const auto extended = std::ranges::count_if(replies, said_yes);
  const nanoseconds validity = validity_after(nanoseconds{lease_clock_ns(timing_.clock) - started});
  RedlockOutcome outcome;
  if (extended < quorum()) {
    outcome.reason = reason::kNoQuorum;
  } else if (validity <= nanoseconds::zero()) {
    outcome.reason = reason::kValidityElapsed;
  } else {
    outcome.ok = true;
    outcome.valid_until_ns = valid_until(started);
  }
  co_return outcome;
}

asio::awaitable<RedlockOutcome> RedlockClient::release(std::vector<std::string> release) {
  const std::vector<std::optional<RespValue>> replies = co_await on_every_instance(std::move(release));
  RedlockOutcome outcome;
  // Fewer than a quorum deleted: some keys had expired or been taken by
  // another client, so this worker no longer held the lock when it let go.
  outcome.ok = std::ranges::count_if(replies, said_yes) >= quorum();
  if (!outcome.ok) outcome.reason = reason::kNoQuorum;
  co_return outcome;
}

}  // namespace locksim::live
