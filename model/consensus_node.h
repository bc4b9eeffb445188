#pragma once
// The `consensus` node: one logical, linearizable leader of an etcd- or
// ZooKeeper-like ensemble, serving locks as etcd's `concurrency.Mutex` and
// the ZooKeeper lock recipe build them. Its internals are not Raft: one node
// applies every request in arrival order, which is what linearizability
// promises a client.
//
// - Sessions: a lease with a TTL, decided on this node's monotonic clock (as
//   etcd's lessor and ZooKeeper's session tracker time them): a wall-clock
//   jump ends none early. A keep-alive (or a poll of a waiting acquire)
//   extends it from now. When the monotonic clock passes the deadline the
//   session ends and its key is deleted.
// - A lock is a queue of keys ordered by revision (a counter incremented on
//   every change: each key created or deleted). The lowest revision holds the
//   lock; its create revision is the fencing token, so tokens rise strictly
//   from one grant to the next.
// - Grants happen when the head changes (a release, an expiry, a first key),
//   recorded as `lease.grant` with the session's remaining time as lease_ns
//   (the TTL for a key granted on arrival). A held acquire request is then
//   answered; a client that is not waiting learns of it on its next poll.
// - A holder's session expiry is `lease.expire`; its keep-alive
//   `lease.renew`; its unlock `lease.release`.
// - lock_delay (Chubby, Consul): after a holder's *failure* (session expiry)
//   no one is granted the lock for lock_delay; after a normal release the
//   next key is granted at once.
// - Storage's ValidateCommand: current iff the token is the holder's revision.
//
// H15, on request: reproduce_etcd_3_4_3_lock_bug() makes the node behave as
// etcd 3.4.3's lock service did (Jepsen, 2020): a waiter whose session expired
// in the queue is not told so; its next poll waits for the keys below its old
// revision to go and is then told it holds the lock — while the queue has
// moved on and the lock is someone else's. No service event marks it: the
// service never granted anything.
//
// The node object outlives crashes (its state stands for the ensemble's
// replicated log). A restart keeps sessions and keys but, like etcd's new
// leader, gives every session a fresh TTL; requests held in memory are lost.
//
// Two ways to run it:
// - Expiry::kOnTheDot: it is a node of its own (`consensus`, service.nodes 1),
//   answering every request at once and ending each session the instant its
//   deadline passes.
// - Expiry::kByLeader: it is the replicated state of an ensemble
//   (consensus_member.h), driven by whichever member leads: that member calls
//   handle() for a request once it is committed (or at once, for the ones a
//   leader answers alone), promote() when it takes over, and revoke() for
//   each session its lessor loop found expired (due_sessions()) once the
//   revocation is committed. A session past its deadline is then only
//   refused, never ended, until its revocation commits.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <optional>
#include <vector>

#include "model/consensus_protocol.h"
#include "model/protocol.h"
#include "sim/simulation.h"

namespace locksim::model {

class ConsensusNode {
 public:
  enum class Expiry { kOnTheDot, kByLeader };

  ConsensusNode(std::string name, sim::Duration lock_delay, Expiry expiry = Expiry::kOnTheDot);

  [[nodiscard]] sim::NodeBoot boot();
  // Whether an ensemble's leader may answer `request` only once a quorum has
  // it (a change to the keys, or storage's linearizable read), rather than
  // alone (a keep-alive or a waiter's poll: etcd's lessor is the leader's).
  [[nodiscard]] static bool needs_quorum(const sim::Message& request);
  // Answers `request` on `context`'s node (Expiry::kByLeader: the leader's).
  void handle(sim::Context context, sim::Message request);
  // Expiry::kByLeader: `context`'s node now leads. As etcd's lessor Promote:
  // every session's deadline is now + its TTL + `extend`; each holder's lease
  // is adopted (`lease.adopt`); requests the old leader held are dropped.
  void promote(sim::Context context, sim::Duration extend);
  // Expiry::kByLeader: the sessions whose deadline `now` has passed, earliest
  // first, that were not handed out by an earlier call since the last promote.
  [[nodiscard]] std::vector<std::string> due_sessions(sim::LocalTime now);
  // Expiry::kByLeader: the revocation of an expired session is committed.
  // Ends `session` as expired; with a `number`, only if it is still that session.
  void revoke(sim::Context context, const std::string& session, std::optional<std::uint64_t> number = std::nullopt);
  // Every session with a deadline, as a lessor knows them (name, number, deadline).
  struct SessionDeadline {
    std::string session;
    std::uint64_t number = 0;
    sim::LocalTime deadline;
  };
  [[nodiscard]] std::vector<SessionDeadline> session_deadlines() const;
  [[nodiscard]] const std::string& name() const { return name_; }
  // H15: from now on, tell a waiter whose session expired that it holds the lock.
  void reproduce_etcd_3_4_3_lock_bug() { tell_expired_waiters_they_hold_ = true; }

 private:
  struct Session {
    std::uint64_t number = 0;  // tells a session from a later one of the same name
    std::string owner;
    std::string lock;
    std::int64_t revision = 0;  // create revision of the session's key
    sim::Duration ttl;          // Duration::max(): never expires
    sim::LocalTime deadline;    // on this node's monotonic clock; LocalTime::max(): never
  };

  struct LockState {
    std::map<std::int64_t, std::string> queue;  // revision → session; the first one is the head
    bool head_granted = false;                  // the head holds the lock (lock_delay may defer it)
    sim::LocalTime grants_resume_at;            // lock_delay: no grant before this (monotonic clock)
    bool delay_timer_running = false;
  };

  struct HeldRequest {
    std::uint64_t number = 0;
    sim::Message request;
  };

  // H15's bug: a waiter whose session expired, as the buggy server remembers it.
  struct ExpiredWaiter {
    std::string lock;
    std::int64_t revision = 0;
  };

  enum class EndCause { kExpired, kReleased };

  void on_boot(sim::Context context);
  // A new leader (or a restart): held requests are gone and every session's deadline is now + TTL + `extend`.
  void take_over(sim::Context context, sim::Duration extend);
  sim::Task<> serve(sim::Context context);
  sim::Task<> watch_session(sim::Context context, std::string session, std::uint64_t number);
  sim::Task<> answer_when_wait_ends(sim::Context context, std::string session, std::uint64_t number,
                                    sim::Duration wait);
  sim::Task<> grant_when_delay_ends(sim::Context context, std::string lock, std::uint64_t epoch);

  void lock(sim::Context context, sim::Message request);
  ConsensusKeepAliveReply keep_alive(sim::Context context, const ConsensusKeepAliveCommand& command);
  ConsensusUnlockReply unlock(sim::Context context, const ConsensusUnlockCommand& command);
  ValidateReply validate(sim::Context context, const ValidateCommand& command);

  // Ends every session whose deadline this node's monotonic clock has passed, earliest first.
  void expire_due_sessions(sim::Context context);
  void end_session(sim::Context context, const std::string& session, EndCause cause, const std::string& by);
  // Grants `lock` to its head if no one holds it and lock_delay allows.
  void grant_if_free(sim::Context context, const std::string& lock);
  // Extends `session` from now; a holder's extension is a `lease.renew`.
  void refresh(sim::Context context, Session& session);
  [[nodiscard]] bool holds(const Session& session) const;
  void answer_held(sim::Context context, const std::string& session, ConsensusLockReply reply);
  // Holds `request` for up to its wait; answered "waiting" if nothing happens first.
  void hold(sim::Context context, const std::string& session, sim::Message request);
  // H15's bug: answers "granted" to every held poll of an expired waiter of
  // `lock` with no key left below its old revision.
  void tell_expired_waiters(sim::Context context, const std::string& lock);
  [[nodiscard]] bool has_key_below(const std::string& lock, std::int64_t revision) const;

  [[nodiscard]] bool on_the_dot() const { return expiry_ == Expiry::kOnTheDot; }

  std::string name_;
  sim::Duration lock_delay_;
  Expiry expiry_;
  bool booted_before_ = false;
  std::uint64_t epoch_ = 0;  // one per take-over: a timer of an earlier leader does nothing
  std::set<std::string> revoking_;  // Expiry::kByLeader: handed out by due_sessions(), not yet revoked
  std::int64_t revision_ = 0;
  std::uint64_t next_number_ = 0;
  std::map<std::string, Session> sessions_;
  std::map<std::string, LockState> locks_;
  std::map<std::string, HeldRequest> held_requests_;  // by session: an acquire waiting for its answer
  bool tell_expired_waiters_they_hold_ = false;
  std::map<std::string, ExpiredWaiter> expired_waiters_;  // by session; only with the H15 bug
};

}  // namespace locksim::model
