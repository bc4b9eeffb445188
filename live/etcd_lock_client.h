#pragma once
// EtcdLockClient: the live worker's client of a real etcd 3.4 cluster. It
// keeps the very rules of the simulator's ConsensusLockClient
// (model/consensus_lock_client.h), since the simulator's verdicts are held
// against live runs, and speaks etcd's own lock recipe (clientv3/concurrency's
// Session and Mutex at v3.4.23) through EtcdGateway:
//
// - acquire: one session (an etcd lease with the TTL) per acquisition; its
//   key, lock + "/" + the lease ID in lowercase hex, is put by Mutex.Lock's
//   transaction. If the first-created key under the prefix is mine, granted;
//   else Mutex's waitDeletes: the newest key created before mine is watched
//   until it is deleted, then the next, until none is left; then (v3.5.0's
//   fix of H15, which no 3.4 release has) my own key must still be there,
//   or the session has expired. The token is my key's create revision.
//   An attempt is a run of rounds, each the model's one request: the first
//   grants the lease and puts the key, each later one (a poll) keeps the
//   session alive first, as etcd's background keep-alive does every TTL/3;
//   then a round waits for its turn for up to min(TTL/3, what is left of
//   the attempt). One attempt waits at most request_timeout (monotonic
//   clock); a round with no answer within its wait plus request_timeout (or
//   any of its requests with none within request_timeout) ends the attempt,
//   unless it was a poll and another member can be asked in the attempt's
//   time. Giving up deletes the key and revokes the session (as Lock does
//   when its context ends) and reports "held" or "timeout"; a round that
//   finds the session gone reports "session-expired".
// - renew: one keep-alive of the session. release: delete the key, revoke
//   the session ("session-expired" if it was gone already).
// - The lease is believed valid until the lease clock, read when the round
//   or keep-alive that last extended the session was sent, plus the TTL:
//   etcd's deadline is no earlier.
// - Members: the client starts with members[first] and moves to the next
//   whenever a request goes unanswered (timed out, refused, or an etcd error
//   such as "no leader" or "request timed out", which may still take
//   effect); a keep-alive and a release are asked again there at once, a
//   poll within the attempt's time; an unanswered first round gives the
//   attempt up (moving on first), since its key may or may not exist.
//
// acquire and release are made one at a time; renew has connections of its
// own, so a watchdog may renew while the worker releases. The client must
// outlive its calls.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "live/asio_coroutines.h"
#include "live/etcd_gateway.h"
#include "sim/clock_kind.h"

namespace locksim::live {

// A lock as the worker believes it held.
struct EtcdLockLease {
  std::int64_t token = 0;           // my key's create revision: rises strictly from grant to grant
  std::int64_t session = 0;         // the etcd lease ID the key is attached to
  std::string key;                  // lock + "/" + session in lowercase hex
  std::int64_t valid_until_ns = 0;  // on the lease clock (lease_clock_ns)
};

struct EtcdAcquireOutcome {
  std::optional<EtcdLockLease> lease;  // set iff granted
  std::string reason;                  // otherwise: held | timeout | session-expired | connection | error
};

struct EtcdRenewOutcome {
  bool renewed = false;
  std::int64_t valid_until_ns = 0;  // when renewed; on the lease clock
  std::string reason;               // when not: session-expired | timeout | connection | error
};

struct EtcdReleaseOutcome {
  bool released = false;
  std::string reason;  // when not: session-expired | timeout | connection | error
};

class EtcdLockClient {
 public:
  // `endpoints`: every member's client endpoint ("127.0.0.1:port"); the
  // client starts with endpoints[first % size] (the model's (worker - 1) mod
  // N). `lock`: the Mutex's prefix without its "/". `ttl_seconds`: the
  // session's TTL (etcd takes whole seconds; it raises one below its minimum,
  // 2 s at defaults, which only makes the belief safer). Requires at least
  // one endpoint and ttl_seconds >= 1; throws LiveError for a malformed endpoint.
  EtcdLockClient(asio::any_io_executor executor, std::vector<std::string> endpoints, std::size_t first,
                 std::string lock, std::int64_t ttl_seconds, std::chrono::nanoseconds request_timeout);
  ~EtcdLockClient();
  EtcdLockClient(const EtcdLockClient&) = delete;
  EtcdLockClient& operator=(const EtcdLockClient&) = delete;

  // One attempt; `owner` (the worker's name) is put as the key's value.
  asio::awaitable<EtcdAcquireOutcome> acquire(std::string owner);
  asio::awaitable<EtcdRenewOutcome> renew(EtcdLockLease lease);
  asio::awaitable<EtcdReleaseOutcome> release(EtcdLockLease lease);

  // The clock valid_until_ns is read on (workers.clock); monotonic unless set.
  void set_lease_clock(sim::ClockKind clock) { lease_clock_ = clock; }
  // The member the next request goes to (an index into the endpoints).
  [[nodiscard]] std::size_t current_member() const { return member_; }

 private:
  struct Member;
  struct Round;
  struct Waiter;
  enum class Answer;
  struct RoundResult;
  struct Unlocked;

  // The model's rounds: the attempt's first (lease, key, wait), which gives
  // my place in the queue as far as it got, and a poll (keep-alive, wait).
  asio::awaitable<std::pair<Waiter, RoundResult>> open_and_queue(std::string owner, Round round);
  asio::awaitable<RoundResult> poll(Round round, Waiter waiter);
  // Mutex's waitDeletes and v3.5.0's check of my key, until the round's wait ends.
  asio::awaitable<RoundResult> wait_for_turn(Round round, Waiter waiter);
  // Waits for the DELETE of `key` after `revision`: nullopt once it is
  // seen, else the round's answer (kWaiting when the round's wait ends first).
  asio::awaitable<std::optional<RoundResult>> watch_delete(Round round, std::string key, std::int64_t revision);
  asio::awaitable<RoundResult> my_key_still_there(Round round, Waiter waiter);
  // Deletes the key and revokes the session, all within request_timeout, at the current member.
  asio::awaitable<Unlocked> unlock(std::string key, std::int64_t session);
  // unlock at the current member without caring for the answer (an unanswered
  // revoke leaves the session to expire by its TTL).
  asio::awaitable<void> give_up(Waiter waiter);

  [[nodiscard]] std::int64_t valid_until(std::int64_t sent_at_ns) const;
  [[nodiscard]] std::string key_of(std::int64_t session) const;
  [[nodiscard]] Member& member() { return *members_[member_]; }
  void next_member() { member_ = (member_ + 1) % members_.size(); }

  asio::any_io_executor executor_;
  std::vector<std::unique_ptr<Member>> members_;
  std::size_t member_;
  std::string prefix_;  // the Mutex's: lock + "/"
  std::int64_t ttl_seconds_;
  std::chrono::nanoseconds poll_every_;  // TTL / 3: the longest wait of one round
  std::chrono::nanoseconds request_timeout_;
  sim::ClockKind lease_clock_ = sim::ClockKind::kMonotonic;
};

}  // namespace locksim::live
