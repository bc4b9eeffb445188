// EtcdLockClient against a real etcd: the rules of the model's
// ConsensusLockClient (model/consensus_lock_client.h) on etcd's own lock
// recipe. Each test starts its own cluster (one member, or three where the
// test is about members) and runs its clients on one io_context.
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "live/etcd_cluster.h"
#include "live/etcd_gateway.h"
#include "live/etcd_lock_client.h"
#include "live/monotonic_clock.h"
#include "vocabulary/reason.h"

namespace locksim::live {
namespace {

namespace reason = vocabulary::reason;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

constexpr char kLock[] = "locksim-test";
constexpr milliseconds kGatewayTimeout{2000};

// Starts `task` on `io`; its result is there once io.run() has returned.
template <typename Result>
std::shared_ptr<std::optional<Result>> spawn(asio::io_context& io, asio::awaitable<Result> task) {
  auto result = std::make_shared<std::optional<Result>>();
  asio::co_spawn(io, std::move(task), [result](std::exception_ptr error, Result value) {
    if (error) std::rethrow_exception(error);
    *result = std::move(value);
  });
  return result;
}

// Runs every task spawned on `io` to its end.
void run_all(asio::io_context& io) {
  io.restart();
  io.run();
}

template <typename Result>
Result run(asio::io_context& io, asio::awaitable<Result> task) {
  const auto result = spawn(io, std::move(task));
  run_all(io);
  return std::move(**result);
}

// A result and when it came.
template <typename Result>
struct Timed {
  Result result;
  steady_clock::time_point at;
};

asio::awaitable<Timed<EtcdAcquireOutcome>> acquire_timed(EtcdLockClient* client, std::string owner) {
  EtcdAcquireOutcome outcome = co_await client->acquire(std::move(owner));
  co_return Timed<EtcdAcquireOutcome>{std::move(outcome), steady_clock::now()};
}

// Releases `lease` after `delay`; `at` is when the release was sent.
asio::awaitable<Timed<EtcdReleaseOutcome>> release_after(EtcdLockClient* client, EtcdLockLease lease,
                                                         milliseconds delay) {
  asio::steady_timer timer{co_await asio::this_coro::executor};
  timer.expires_after(delay);
  co_await timer.async_wait(asio::use_awaitable);
  const steady_clock::time_point sent = steady_clock::now();
  EtcdReleaseOutcome outcome = co_await client->release(std::move(lease));
  co_return Timed<EtcdReleaseOutcome>{std::move(outcome), sent};
}

milliseconds between(steady_clock::time_point from, steady_clock::time_point to) {
  return std::chrono::duration_cast<milliseconds>(to - from);
}

// The holder's release went through and the waiter was granted after it, with a higher token, within 300 ms.
void expect_handed_over(const Timed<EtcdReleaseOutcome>& released, const Timed<EtcdAcquireOutcome>& granted,
                        const EtcdLockLease& held) {
  EXPECT_TRUE(released.result.released) << released.result.reason;
  ASSERT_TRUE(granted.result.lease) << granted.result.reason;
  EXPECT_GT(granted.result.lease->token, held.token);
  EXPECT_GE(granted.at, released.at);
  EXPECT_LT(between(released.at, granted.at), milliseconds{300}) << "a release hands the lock over at once";
}

std::vector<EtcdKeyValue> keys_of_the_lock(asio::io_context& io, const std::string& endpoint) {
  EtcdGateway gateway{io.get_executor(), endpoint};
  const std::optional<EtcdRange> found =
      run(io, gateway.range(EtcdPrefixQuery{std::string{kLock} + "/"}, kGatewayTimeout));
  EXPECT_TRUE(found) << gateway.failure() << ": " << gateway.error_message();
  return found ? found->key_values : std::vector<EtcdKeyValue>{};
}

TEST(EtcdLockClient, TheFirstIsGrantedItsKeysRevisionAndAnotherGivesUpHeldLeavingNoKey) {
  EtcdCluster cluster;
  asio::io_context io;
  EtcdLockClient holder{io.get_executor(), cluster.client_endpoints(), 0, kLock, 5, milliseconds{500}};
  const std::int64_t sent_ns = lease_clock_ns(sim::ClockKind::kMonotonic);
  const EtcdAcquireOutcome first = run(io, holder.acquire("worker-1"));
  ASSERT_TRUE(first.lease) << first.reason;
  const EtcdLockLease& lease = *first.lease;
  EXPECT_EQ(lease.key, fmt::format("{}/{:x}", kLock, lease.session)) << "the Mutex's key: prefix/lease ID in hex";
  EXPECT_GE(lease.valid_until_ns, sent_ns + 5'000'000'000) << "valid from the send of the request, for the TTL";
  EXPECT_LE(lease.valid_until_ns, lease_clock_ns(sim::ClockKind::kMonotonic) + 5'000'000'000);
  const std::vector<EtcdKeyValue> keys = keys_of_the_lock(io, cluster.client_endpoint(0));
  ASSERT_EQ(keys.size(), 1U);
  EXPECT_EQ(keys[0].key, lease.key);
  EXPECT_EQ(keys[0].value, "worker-1") << "the worker's name is the key's value";
  EXPECT_EQ(keys[0].create_revision, lease.token) << "the token is the key's create revision";
  EXPECT_EQ(keys[0].lease, lease.session);

  EtcdLockClient other{io.get_executor(), cluster.client_endpoints(), 0, kLock, 5, milliseconds{300}};
  const steady_clock::time_point started = steady_clock::now();
  const EtcdAcquireOutcome second = run(io, other.acquire("worker-2"));
  const milliseconds took = between(started, steady_clock::now());
  EXPECT_FALSE(second.lease);
  EXPECT_EQ(second.reason, reason::kHeld);
  EXPECT_GE(took, milliseconds{300}) << "it waits its request_timeout";
  EXPECT_LT(took, milliseconds{1000});
  const std::vector<EtcdKeyValue> after = keys_of_the_lock(io, cluster.client_endpoint(0));
  ASSERT_EQ(after.size(), 1U) << "giving up deleted the waiter's key";
  EXPECT_EQ(after[0].key, lease.key);
}

TEST(EtcdLockClient, AWaiterIsGrantedTheMomentTheHolderReleases) {
  EtcdCluster cluster;
  asio::io_context io;
  EtcdLockClient holder{io.get_executor(), cluster.client_endpoints(), 0, kLock, 5, milliseconds{500}};
  EtcdLockClient waiter{io.get_executor(), cluster.client_endpoints(), 0, kLock, 5, seconds{10}};
  const EtcdAcquireOutcome held = run(io, holder.acquire("worker-1"));
  ASSERT_TRUE(held.lease) << held.reason;

  const auto waited = spawn(io, acquire_timed(&waiter, "worker-2"));
  const auto released = spawn(io, release_after(&holder, *held.lease, milliseconds{1000}));
  run_all(io);
  ASSERT_TRUE(*released && *waited);
  expect_handed_over(**released, **waited, *held.lease);

  const EtcdReleaseOutcome again = run(io, holder.release(*held.lease));
  EXPECT_FALSE(again.released);
  EXPECT_EQ(again.reason, reason::kSessionExpired) << "its session is revoked already";
  const std::vector<EtcdKeyValue> keys = keys_of_the_lock(io, cluster.client_endpoint(0));
  ASSERT_EQ(keys.size(), 1U);
  EXPECT_EQ(keys[0].value, "worker-2");
}

TEST(EtcdLockClient, AHolderThatStopsRenewingLosesItsSessionAfterTheTtl) {
  EtcdCluster cluster;
  asio::io_context io;
  EtcdLockClient holder{io.get_executor(), cluster.client_endpoints(), 0, kLock, 2, milliseconds{500}};
  EtcdLockClient waiter{io.get_executor(), cluster.client_endpoints(), 0, kLock, 2, seconds{10}};
  const steady_clock::time_point sent = steady_clock::now();
  const EtcdAcquireOutcome held = run(io, holder.acquire("worker-1"));
  ASSERT_TRUE(held.lease) << held.reason;

  // The waiter's own 2 s session outlives the wait: its polls keep it alive.
  const Timed<EtcdAcquireOutcome> granted = run(io, acquire_timed(&waiter, "worker-2"));
  ASSERT_TRUE(granted.result.lease) << granted.result.reason;
  EXPECT_GT(granted.result.lease->token, held.lease->token);
  const milliseconds after = between(sent, granted.at);
  EXPECT_GE(after, milliseconds{2000}) << "not before the TTL";
  EXPECT_LT(after, milliseconds{2800}) << "TTL + up to 0.5 s of etcd's lessor, + a little";

  const EtcdRenewOutcome renewed = run(io, holder.renew(*held.lease));
  EXPECT_FALSE(renewed.renewed);
  EXPECT_EQ(renewed.reason, reason::kSessionExpired);
  const EtcdRenewOutcome waiter_renewed = run(io, waiter.renew(*granted.result.lease));
  EXPECT_TRUE(waiter_renewed.renewed) << waiter_renewed.reason;
}

TEST(EtcdLockClient, ARenewThatAPausedMemberLeavesUnansweredSucceedsAtTheNextMember) {
  EtcdClusterOptions options;
  options.member_count = 3;
  EtcdCluster cluster{options};
  const std::optional<std::size_t> leader = cluster.leader();
  ASSERT_TRUE(leader);
  // Two followers: the next member forwards to a leader that answers.
  const std::size_t first = (*leader + 1) % 3;
  const std::size_t next = (first + 1) % 3;
  asio::io_context io;
  EtcdLockClient client{io.get_executor(), cluster.client_endpoints(), first, kLock, 5, milliseconds{500}};
  const EtcdAcquireOutcome held = run(io, client.acquire("worker-1"));
  ASSERT_TRUE(held.lease) << held.reason;
  EXPECT_EQ(client.current_member(), first);

  cluster.pause(first);
  const std::int64_t sent_ns = lease_clock_ns(sim::ClockKind::kMonotonic);
  const steady_clock::time_point started = steady_clock::now();
  const EtcdRenewOutcome renewed = run(io, client.renew(*held.lease));
  const milliseconds took = between(started, steady_clock::now());
  ASSERT_TRUE(renewed.renewed) << renewed.reason;
  EXPECT_EQ(client.current_member(), next);
  EXPECT_GE(took, milliseconds{500}) << "the paused member had its request_timeout";
  EXPECT_LT(took, milliseconds{1500});
  EXPECT_GE(renewed.valid_until_ns, sent_ns + 5'000'000'000);

  EtcdGateway at_leader{io.get_executor(), cluster.client_endpoint(*leader)};
  const std::optional<std::int64_t> remaining =
      run(io, at_leader.lease_time_to_live(held.lease->session, kGatewayTimeout));
  ASSERT_TRUE(remaining) << at_leader.failure() << ": " << at_leader.error_message();
  EXPECT_GE(*remaining, 4) << "the session survives, renewed just now";
  const std::vector<EtcdKeyValue> keys = keys_of_the_lock(io, cluster.client_endpoint(*leader));
  ASSERT_EQ(keys.size(), 1U);
  EXPECT_EQ(keys[0].create_revision, held.lease->token);

  const EtcdReleaseOutcome released = run(io, client.release(*held.lease));
  EXPECT_TRUE(released.released) << released.reason;
  EXPECT_EQ(client.current_member(), next) << "the release goes where the renew went";

  // An attempt whose first request goes unanswered is given up (its key may
  // or may not exist), and the next attempt starts at the next member.
  EtcdLockClient newcomer{io.get_executor(), cluster.client_endpoints(), first, kLock, 5, milliseconds{500}};
  const EtcdAcquireOutcome unanswered = run(io, newcomer.acquire("worker-2"));
  EXPECT_FALSE(unanswered.lease);
  EXPECT_EQ(unanswered.reason, reason::kTimeout);
  EXPECT_EQ(newcomer.current_member(), next);
  cluster.resume(first);
}

// Crashes `member` of `cluster` after `crash_after`, then releases `lease`
// `release_after` later; `at` is when the release was sent.
asio::awaitable<Timed<EtcdReleaseOutcome>> crash_then_release(EtcdCluster* cluster, std::size_t member,
                                                              milliseconds crash_after, EtcdLockClient* holder,
                                                              EtcdLockLease lease, milliseconds release_after) {
  asio::steady_timer timer{co_await asio::this_coro::executor};
  timer.expires_after(crash_after);
  co_await timer.async_wait(asio::use_awaitable);
  cluster->crash(member);
  timer.expires_after(release_after);
  co_await timer.async_wait(asio::use_awaitable);
  const steady_clock::time_point sent = steady_clock::now();
  EtcdReleaseOutcome outcome = co_await holder->release(std::move(lease));
  co_return Timed<EtcdReleaseOutcome>{std::move(outcome), sent};
}

TEST(EtcdLockClient, AWaiterWhoseMemberCrashesPollsTheNextMemberAndIsGranted) {
  EtcdClusterOptions options;
  options.member_count = 3;
  EtcdCluster cluster{options};
  const std::optional<std::size_t> leader = cluster.leader();
  ASSERT_TRUE(leader);
  const std::size_t crashed = (*leader + 1) % 3;  // a follower: no election in between
  asio::io_context io;
  EtcdLockClient holder{io.get_executor(), cluster.client_endpoints(), *leader, kLock, 3, milliseconds{500}};
  EtcdLockClient waiter{io.get_executor(), cluster.client_endpoints(), crashed, kLock, 3, seconds{4}};
  const EtcdAcquireOutcome held = run(io, holder.acquire("worker-1"));
  ASSERT_TRUE(held.lease) << held.reason;

  // The crash, in the attempt's second round (a round waits TTL/3 = 1 s),
  // breaks the waiter's watch at once: the poll goes to the next member
  // within the attempt's time, where the key is queued all the same. (A
  // crash in the first round would give the attempt up.)
  const auto waited = spawn(io, acquire_timed(&waiter, "worker-2"));
  const auto released =
      spawn(io, crash_then_release(&cluster, crashed, milliseconds{1300}, &holder, *held.lease, milliseconds{1000}));
  run_all(io);
  ASSERT_TRUE(*released && *waited);
  expect_handed_over(**released, **waited, *held.lease);
  EXPECT_EQ(waiter.current_member(), (crashed + 1) % 3);
}

}  // namespace
}  // namespace locksim::live
