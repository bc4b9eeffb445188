#pragma once
// The client of the `consensus` service, as etcd's `concurrency.Mutex` and
// the ZooKeeper lock recipe use theirs, with one session per acquisition:
//
// - acquire: open a session with the lease as TTL and put its key in the
//   lock's queue (one request), then wait. Waiting is a long poll: the server
//   holds each request for up to TTL / 3 and answers at once when the key
//   becomes the holder; each new poll doubles as the waiting session's
//   keep-alive (etcd keeps a waiting session alive the same way, from a
//   background keep-alive). One attempt waits at most request_timeout on the
//   worker's clock; then, or when a request gets no answer within its wait
//   plus request_timeout, the client deletes its key and revokes its session
//   (as etcd's Lock does when its context ends) and reports "held" or
//   "timeout". The worker's retry loop makes the next attempt, at the back of
//   the queue.
// - renew: a keep-alive of the session. release: delete the key and revoke
//   the session.
// - The lease is believed valid until the worker's clock, read when the
//   request that last extended the session was sent, plus the TTL: the
//   server's deadline is no earlier, so the belief errs on the safe side.
// - With an ensemble (several members) the client talks to one member, the
//   worker's own by turn (worker-1 to consensus-0, …), and moves to the next
//   member whenever a request goes unanswered, as a client with several
//   endpoints that redials does: a keep-alive and a release are asked again
//   there at once; an unanswered acquire request ends the attempt as
//   above (a poll's answer is due only after the attempt's time is up).

#include <cstddef>
#include <vector>

#include "model/lock_client.h"

namespace locksim::model {

class ConsensusLockClient final : public LockClient {
 public:
  // `members`: the service's nodes; the client starts with members[first].
  ConsensusLockClient(std::vector<sim::NodeId> members, std::size_t first, std::string lock,
                      std::optional<sim::Duration> lease, sim::Duration request_timeout);

  sim::Task<AcquireOutcome> acquire(sim::Context context, std::string owner, std::string value) override;
  sim::Task<RenewOutcome> renew(sim::Context context, Lease lease) override;
  sim::Task<ReleaseOutcome> release(sim::Context context, std::string owner, Lease lease) override;

 private:
  // Deletes the key and revokes the session; the answer does not matter (an
  // unanswered revoke leaves the session to expire by its TTL).
  sim::Task<> give_up(sim::Context context, std::string owner, std::string session);
  [[nodiscard]] sim::LocalTime valid_until(sim::LocalTime sent_at) const;
  // Asks the current member, and each other one in turn while none answers; nothing if none does.
  sim::Task<std::optional<sim::Message>> call_some_member(sim::Context context, sim::Payload request,
                                                          sim::Duration timeout);
  void next_member() { member_ = (member_ + 1) % members_.size(); }
  [[nodiscard]] sim::NodeId member() const { return members_[member_]; }

  std::vector<sim::NodeId> members_;
  std::size_t member_;
  std::string lock_;
  sim::Duration ttl_;            // Duration::max(): the session never expires
  sim::Duration poll_every_;     // how long the server may hold one acquire request
  sim::Duration request_timeout_;
};

}  // namespace locksim::model
