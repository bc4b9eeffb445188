#include "model/consensus_member.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "model/consensus_protocol.h"

namespace locksim::model {

using sim::Context;
using sim::Duration;

namespace {

// etcd's lessor looks for expired leases this often (lease/lessor.go, runLoop).
constexpr Duration kLessorLoop = Duration::milliseconds(500);

// etcd 3.4.23 (issue #15247, fixed in 3.4.31 and 3.5.13): a leader that
// resumes after a pause steps down in its Raft loop, but its lessor, not yet
// demoted, may first look at its leases by their stale deadlines and
// propose the revocation of those past them, which the follower it now is
// forwards to the new leader. Which goroutine runs first is the Go
// scheduler's race, and how often it goes either way depends on the
// machine: on this one a single freeze revoked the lease in 3 of 40 and,
// another day, 4 of 20 trials (scripts/etcd-stale-leader.sh), and the live
// runs of h16-etcd-stale-leader-revokes (four freezes each) had a
// revocation in 15 of 23. About 1 wake-up in 6 fits them all.
constexpr double kStaleLessorRace = 1.0 / 6.0;

}  // namespace

std::string consensus_member_name(int index) { return "consensus-" + std::to_string(index); }

Duration etcd_min_lease_ttl(Duration heartbeat, Duration election_timeout) {
  const std::int64_t election_ticks = election_timeout.count_ns() / heartbeat.count_ns();
  const Duration min_ttl = heartbeat * (3 * election_ticks / 2);
  const std::int64_t second = Duration::seconds(1).count_ns();
  return Duration::seconds((min_ttl.count_ns() + second - 1) / second);
}

std::optional<std::size_t> Ensemble::acting_leader() const {
  if (!leader || !simulation->is_up(members[*leader])) return std::nullopt;
  return leader;
}

sim::NodeBoot ConsensusMember::boot() {
  return [this](Context context) { on_boot(context); };
}

void ConsensusMember::on_boot(Context context) {
  // A restart comes back as a follower knowing no leader, with its term, vote and log.
  if (ensemble_->leader == index_) ensemble_->leader.reset();
  role_ = Role::kFollower;
  lead_.reset();
  pending_.clear();
  lessor_view_.clear();
  reset_election_timer(context);
  if (!booted_before_) {
    // The run begins with a leader, consensus-0 in term 1, as live mode
    // begins once its cluster has elected one.
    term_ = 1;
    lead_ = 0;
    if (index_ == 0) {
      role_ = Role::kLeader;
      ensemble_->leader = index_;
    }
  }
  booted_before_ = true;
  context.spawn("server", serve(context));
  context.spawn("raft-ticker", tick(context));
  context.spawn("lessor", lessor_loop(context));
}

std::optional<std::size_t> ConsensusMember::member_index(sim::NodeId node) const {
  const auto found = std::find(ensemble_->members.begin(), ensemble_->members.end(), node);
  if (found == ensemble_->members.end()) return std::nullopt;
  return static_cast<std::size_t>(found - ensemble_->members.begin());
}

void ConsensusMember::send_to(Context context, std::size_t member, sim::Payload body) const {
  context.send(ensemble_->members[member], std::move(body));
}

sim::Task<> ConsensusMember::serve(Context context) {
  while (true) {
    sim::Message message = co_await context.receive();
    if (const std::optional<std::size_t> from = member_index(message.from); from && message.call_id == 0) {
      step(context, message, *from);
    } else {
      on_request(context, std::move(message));
    }
  }
}

// --- clients ------------------------------------------------------------------

void ConsensusMember::on_request(Context context, sim::Message request) {
  if (role_ == Role::kLeader) {
    if (!acting_leader()) return;  // deposed, and about to hear so: see the header
    if (ConsensusNode::needs_quorum(request)) {
      propose(context, Proposal{0, std::move(request), {}});
    } else {
      ensemble_->state.handle(context, std::move(request));
      remember_deadlines();
    }
    return;
  }
  if (lead_) context.spawn("forward", forward(context, std::move(request)));
}

sim::Task<> ConsensusMember::forward(Context context, sim::Message request) {
  Duration wait = Duration::zero();
  if (const auto* lock = request.body.get_if<ConsensusLockCommand>()) wait = lock->wait;
  // etcd bounds a forwarded request by its ReqTimeout: 5 s + 2 election
  // timeouts (etcdserver/config.go), 7 s with the defaults. Past a frozen
  // leader, that is how long the request hangs.
  const sim::LocalTime deadline =
      context.monotonic_now() + wait + Duration::seconds(5) + ensemble_->election_timeout() * 2;
  // A keep-alive is sent again, to the leader known then, while time is left
  // (etcd 3.4's LeaseRenew loop, v3_server.go): a crashed leader's refused
  // connection fails it at once. Anything else is proposed once.
  const bool again = request.body.holds<ConsensusKeepAliveCommand>();
  while (context.monotonic_now() < deadline) {
    if (lead_ == index_) {  // elected meanwhile: it answers itself
      on_request(context, std::move(request));
      co_return;
    }
    if (!lead_ || !ensemble_->simulation->is_up(ensemble_->members[*lead_])) {
      if (!again) co_return;
      co_await context.sleep(ensemble_->heartbeat);
      continue;
    }
    const std::optional<sim::Message> answer =
        co_await context.call(ensemble_->members[*lead_], request.body, deadline - context.monotonic_now());
    if (answer) context.reply(request, answer->body);
    co_return;
  }
}

// --- Raft ---------------------------------------------------------------------

sim::Task<> ConsensusMember::tick(Context context) {
  while (true) {
    co_await context.sleep(ensemble_->heartbeat);
    ++election_elapsed_;
    if (role_ != Role::kLeader) {
      if (election_elapsed_ >= randomized_timeout_) campaign(context);
      continue;
    }
    if (election_elapsed_ >= ensemble_->election_ticks) {
      // CheckQuorum: step down unless a majority (this member included) answered.
      election_elapsed_ = 0;
      const bool heard_from_majority = static_cast<int>(active_.size()) + 1 >= ensemble_->quorum();
      active_.clear();
      if (!heard_from_majority) {
        become_follower(term_, std::nullopt);
        reset_election_timer(context);
        continue;
      }
    }
    broadcast_append(context);
  }
}

void ConsensusMember::reset_election_timer(Context context) {
  election_elapsed_ = 0;
  const auto ticks = static_cast<std::uint64_t>(ensemble_->election_ticks);
  randomized_timeout_ = ensemble_->election_ticks + static_cast<int>(context.draw_below(ticks, "election timeout"));
}

void ConsensusMember::step(Context context, const sim::Message& message, std::size_t from) {
  const sim::Payload& body = message.body;
  if (const auto* revoke = body.get_if<RaftForwardedRevoke>()) {
    on_forwarded_revoke(context, *revoke);
    return;
  }
  std::int64_t term = 0;
  if (const auto* append = body.get_if<RaftAppend>()) term = append->term;
  if (const auto* ack = body.get_if<RaftAppendAck>()) term = ack->term;
  if (const auto* vote = body.get_if<RaftVote>()) term = vote->term;
  if (const auto* vote_ack = body.get_if<RaftVoteAck>()) term = vote_ack->term;

  if (term > term_) {
    if (body.holds<RaftVote>() && lead_ && election_elapsed_ < ensemble_->election_ticks) {
      return;  // CheckQuorum's lease: this member's leader is alive; the vote is ignored, term and all
    }
    const bool from_new_leader = body.holds<RaftAppend>();
    if (role_ == Role::kLeader && from_new_leader) revoke_by_stale_deadlines(context, from);
    become_follower(term, from_new_leader ? std::optional<std::size_t>{from} : std::nullopt);
    reset_election_timer(context);
  } else if (term < term_) {
    // A stale leader (back from a pause or a partition) learns the newer term from the answer.
    if (body.holds<RaftAppend>()) send_to(context, from, RaftAppendAck{term_, last_index_, false});
    return;
  }

  if (const auto* append = body.get_if<RaftAppend>()) on_append(context, *append, from);
  if (const auto* ack = body.get_if<RaftAppendAck>()) on_append_ack(context, *ack, from);
  if (const auto* vote = body.get_if<RaftVote>()) on_vote(context, *vote, from);
  if (const auto* vote_ack = body.get_if<RaftVoteAck>()) on_vote_ack(context, *vote_ack, from);
}

void ConsensusMember::on_append(Context context, const RaftAppend& append, std::size_t from) {
  if (role_ != Role::kFollower || lead_ != from) become_follower(term_, from);
  election_elapsed_ = 0;
  last_index_ = append.last_index;  // the leader's log is the one that counts (Raft truncates to it)
  send_to(context, from, RaftAppendAck{term_, last_index_, true});
}

void ConsensusMember::on_append_ack(Context context, const RaftAppendAck& ack, std::size_t from) {
  if (role_ != Role::kLeader || !ack.ok) return;
  active_.insert(from);
  std::int64_t& match = match_[from];
  match = std::max(match, ack.last_index);
  commit(context);
}

void ConsensusMember::on_vote(Context context, const RaftVote& vote, std::size_t from) {
  const bool can_vote = voted_for_ == from || (!voted_for_ && !lead_);
  const bool granted = can_vote && vote.last_index >= last_index_;
  if (granted) {
    voted_for_ = from;
    election_elapsed_ = 0;
  }
  send_to(context, from, RaftVoteAck{term_, granted});
}

void ConsensusMember::on_vote_ack(Context context, const RaftVoteAck& ack, std::size_t from) {
  if (role_ != Role::kCandidate) return;
  (ack.granted ? votes_for_ : votes_against_).insert(from);
  if (static_cast<int>(votes_for_.size()) >= ensemble_->quorum()) {
    become_leader(context);
  } else if (static_cast<int>(votes_against_.size()) >= ensemble_->quorum()) {
    become_follower(term_, std::nullopt);
  }
}

void ConsensusMember::revoke_by_stale_deadlines(Context context, std::size_t new_leader) {
  if (!context.draw_chance(kStaleLessorRace, "stale lessor")) return;
  for (const ConsensusNode::SessionDeadline& known : lessor_view_) {
    if (known.deadline <= context.monotonic_now()) {
      send_to(context, new_leader, RaftForwardedRevoke{known.session, known.number});
    }
  }
}

void ConsensusMember::on_forwarded_revoke(Context context, const RaftForwardedRevoke& revoke) {
  if (role_ == Role::kLeader && acting_leader()) {
    propose(context, Proposal{0, std::nullopt, revoke.session, revoke.number});
  } else if (lead_ && *lead_ != index_) {
    send_to(context, *lead_, revoke);  // etcd forwards a proposal to the leader it knows, else drops it
  }
}

void ConsensusMember::remember_deadlines() {
  if (acting_leader()) lessor_view_ = ensemble_->state.session_deadlines();
}

void ConsensusMember::become_follower(std::int64_t term, std::optional<std::size_t> lead) {
  if (term != term_) voted_for_.reset();
  term_ = term;
  if (role_ == Role::kLeader && ensemble_->leader == index_) ensemble_->leader.reset();
  role_ = Role::kFollower;
  lead_ = lead;
  pending_.clear();  // proposals not yet committed: their clients time out
}

void ConsensusMember::campaign(Context context) {
  ++term_;
  role_ = Role::kCandidate;
  voted_for_ = index_;
  lead_.reset();
  reset_election_timer(context);
  votes_for_ = {index_};
  votes_against_.clear();
  for (std::size_t member = 0; member < ensemble_->members.size(); ++member) {
    if (member != index_) send_to(context, member, RaftVote{term_, last_index_});
  }
}

void ConsensusMember::become_leader(Context context) {
  role_ = Role::kLeader;
  lead_ = index_;
  ensemble_->leader = index_;
  election_elapsed_ = 0;
  match_.clear();
  active_.clear();
  pending_.clear();
  ensemble_->state.promote(context, ensemble_->election_timeout());
  remember_deadlines();
  propose(context, Proposal{});  // Raft's empty entry of the new term
}

void ConsensusMember::propose(Context context, Proposal proposal) {
  proposal.index = ++last_index_;
  pending_.push_back(std::move(proposal));
  if (ensemble_->quorum() == 1) {
    commit(context);
    return;
  }
  broadcast_append(context);
}

void ConsensusMember::broadcast_append(Context context) const {
  for (std::size_t member = 0; member < ensemble_->members.size(); ++member) {
    if (member != index_) send_to(context, member, RaftAppend{term_, last_index_});
  }
}

void ConsensusMember::commit(Context context) {
  // The highest index a majority's logs reach: the quorum-th largest.
  std::vector<std::int64_t> reach{last_index_};
  for (std::size_t member = 0; member < ensemble_->members.size(); ++member) {
    if (member == index_) continue;
    const auto match = match_.find(member);
    reach.push_back(match == match_.end() ? 0 : match->second);
  }
  std::sort(reach.begin(), reach.end(), std::greater<>{});
  const std::int64_t committed = reach[static_cast<std::size_t>(ensemble_->quorum() - 1)];
  while (!pending_.empty() && pending_.front().index <= committed && acting_leader()) {
    Proposal proposal = std::move(pending_.front());
    pending_.pop_front();
    if (proposal.request) {
      ensemble_->state.handle(context, std::move(*proposal.request));
    } else if (!proposal.revoke.empty()) {
      ensemble_->state.revoke(context, proposal.revoke, proposal.revoke_number);
    }
  }
  remember_deadlines();
}

// --- leases -------------------------------------------------------------------

sim::Task<> ConsensusMember::lessor_loop(Context context) {
  while (true) {
    co_await context.sleep(kLessorLoop);
    if (role_ != Role::kLeader || !acting_leader()) continue;
    for (std::string& session : ensemble_->state.due_sessions(context.monotonic_now())) {
      propose(context, Proposal{0, std::nullopt, std::move(session)});
    }
  }
}

}  // namespace locksim::model
