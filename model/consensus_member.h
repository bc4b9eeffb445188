#pragma once
// One member of a `consensus` ensemble (service.nodes > 1): consensus-0, …,
// an etcd 3.4 server as far as leadership, commitment and leases go.
//
// - Raft, as etcd's raft package runs it with etcd's settings: a tick every
//   heartbeat interval; a follower that hears no leader for a randomized
//   election timeout (election_timeout plus a random whole number of ticks
//   below it) campaigns; a majority of votes makes a leader. CheckQuorum is
//   on: a leader that heard from no majority in an election timeout steps
//   down, and a member that heard from its leader within one ignores votes
//   (so a member coming back from a partition cannot depose a healthy
//   leader). A candidate whose log is behind the voter's gets no vote. PreVote
//   is off, as in etcd 3.4.
// - A change to the keys (a contender's key put, a key deleted, a lease
//   revoked) and storage's linearizable read are answered once a majority's
//   logs have them (committed), in the order the leader took them.
//   Keep-alives and a waiter's polls are the leader's alone, as etcd's lessor
//   is: no round trip to the followers.
// - Leases: the leader's lessor holds every deadline on its monotonic clock;
//   every 500 ms (lease/lessor.go runLoop) it proposes the revocation of the
//   expired ones, which end when committed. A new leader's lessor promotes
//   every lease to its full TTL plus the election timeout (etcd 3.4, lease
//   checkpointing off: Promote(electionTimeout)).
// - A member that is not the leader forwards a client's request to the leader
//   it knows and relays the answer (etcd v3 forwards; it does not redirect),
//   waiting for it up to etcd's request timeout (7 s with the defaults): a
//   frozen leader holds the request that long, a crashed one not at all (the
//   reply never comes either way; the client's own timeout decides). Knowing
//   no leader, it answers nothing.
// - The run begins with consensus-0 leading in term 1: live mode, too,
//   begins once its cluster has elected a leader.
//
// - etcd 3.4.23's deposed leader (issue #15247): stepping down on the new
//   leader's append, its lessor, in kStaleLessorRace of the cases (the Go
//   scheduler's race, as measured), first finds leases expired by the
//   deadlines it knew when it last led and has their revocation forwarded
//   to the new leader, which commits it.
//
// Simplifications, stated: the replicated state is one object all members
// share (an entry is applied once, by the leader that commits it), so a log
// is only how far it reaches; a member that leads in a term older than the
// newest leader's answers no request (etcd 3.4's deposed leader could still
// renew a lease until it hears of the new term, about one round trip).
// Crashes keep a member's term, vote and log (etcd's WAL).

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/consensus_node.h"
#include "model/consensus_raft.h"
#include "sim/simulation.h"

namespace locksim::model {

// A member's node name: consensus-0, consensus-1, …
[[nodiscard]] std::string consensus_member_name(int index);
// The fault target that stands for whichever member leads when the fault strikes.
inline constexpr char kConsensusLeader[] = "consensus-leader";

// etcd's shortest lease with these timings: 1.5 election timeouts in whole
// heartbeats, rounded up to whole seconds (etcdserver/server.go, minTTL;
// 2 s with the defaults). etcd's lessor raises a shorter TTL to it.
[[nodiscard]] sim::Duration etcd_min_lease_ttl(sim::Duration heartbeat, sim::Duration election_timeout);

// What the members of one ensemble share.
struct Ensemble {
  Ensemble(sim::Simulation& running, sim::Duration lock_delay, sim::Duration tick, sim::Duration election_timeout)
      : simulation{&running},
        state{"consensus", lock_delay, ConsensusNode::Expiry::kByLeader},
        heartbeat{tick},
        election_ticks{static_cast<int>(election_timeout.count_ns() / tick.count_ns())} {}

  [[nodiscard]] int quorum() const { return static_cast<int>(members.size()) / 2 + 1; }
  [[nodiscard]] sim::Duration election_timeout() const { return heartbeat * election_ticks; }
  // The member leading in the newest term, while it is up.
  [[nodiscard]] std::optional<std::size_t> acting_leader() const;

  sim::Simulation* simulation;
  ConsensusNode state;               // the replicated keys and sessions, and the leader's lessor
  std::vector<sim::NodeId> members;  // by member index
  sim::Duration heartbeat;
  int election_ticks;
  std::optional<std::size_t> leader;  // the newest term's leader, until it steps down
};

class ConsensusMember {
 public:
  ConsensusMember(std::size_t index, Ensemble& ensemble) : index_{index}, ensemble_{&ensemble} {}

  [[nodiscard]] sim::NodeBoot boot();

 private:
  enum class Role { kFollower, kCandidate, kLeader };

  // A change waiting for a majority: a client's request, or the revocation of
  // an expired session (`revoke`), or the new leader's empty entry (neither).
  struct Proposal {
    std::int64_t index = 0;
    std::optional<sim::Message> request;
    std::string revoke;
    std::optional<std::uint64_t> revoke_number{};  // a forwarded revocation's: only that session
  };

  void on_boot(sim::Context context);
  sim::Task<> serve(sim::Context context);
  sim::Task<> tick(sim::Context context);
  sim::Task<> lessor_loop(sim::Context context);
  sim::Task<> forward(sim::Context context, sim::Message request);

  void on_request(sim::Context context, sim::Message request);
  // Raft's Step: a message from another member, `from`.
  void step(sim::Context context, const sim::Message& message, std::size_t from);
  void on_append(sim::Context context, const RaftAppend& append, std::size_t from);
  void on_append_ack(sim::Context context, const RaftAppendAck& ack, std::size_t from);
  void on_vote(sim::Context context, const RaftVote& vote, std::size_t from);
  void on_vote_ack(sim::Context context, const RaftVoteAck& ack, std::size_t from);

  // etcd 3.4.23's deposed leader (#15247, consensus_member.cpp): as it
  // steps down, its lessor may revoke by its stale deadlines.
  void revoke_by_stale_deadlines(sim::Context context, std::size_t new_leader);
  void on_forwarded_revoke(sim::Context context, const RaftForwardedRevoke& revoke);
  // The acting leader's lessor's deadlines, kept for when it no longer is.
  void remember_deadlines();
  void become_follower(std::int64_t term, std::optional<std::size_t> lead);
  void campaign(sim::Context context);
  void become_leader(sim::Context context);
  void propose(sim::Context context, Proposal proposal);
  void broadcast_append(sim::Context context) const;
  // Applies every proposal a majority's logs now reach.
  void commit(sim::Context context);
  void reset_election_timer(sim::Context context);
  void send_to(sim::Context context, std::size_t member, sim::Payload body) const;

  [[nodiscard]] bool acting_leader() const { return ensemble_->acting_leader() == index_; }
  [[nodiscard]] std::optional<std::size_t> member_index(sim::NodeId node) const;

  std::size_t index_;
  Ensemble* ensemble_;
  // Kept through a crash (etcd's WAL): term, vote, log.
  std::int64_t term_ = 0;
  std::optional<std::size_t> voted_for_;
  std::int64_t last_index_ = 0;
  bool booted_before_ = false;
  // Lost in a crash.
  Role role_ = Role::kFollower;
  std::optional<std::size_t> lead_;
  int election_elapsed_ = 0;
  int randomized_timeout_ = 0;
  std::set<std::size_t> votes_for_;
  std::set<std::size_t> votes_against_;
  std::map<std::size_t, std::int64_t> match_;  // leader: how far each follower's log reaches
  std::set<std::size_t> active_;               // leader: who answered since the last quorum check
  std::deque<Proposal> pending_;               // leader: in log order
  // Its lessor's deadlines as last known while it led (kept in memory: a crash loses them).
  std::vector<ConsensusNode::SessionDeadline> lessor_view_;
};

}  // namespace locksim::model
