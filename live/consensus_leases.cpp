#include "live/consensus_leases.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "model/consensus_member.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"
#include "vocabulary/setup_name.h"

namespace locksim::live {

using vocabulary::EventKind;
using vocabulary::event_kind_name;
namespace field = vocabulary::field;

namespace {

using Json = nlohmann::json;
using OwnerToken = std::pair<std::string, std::int64_t>;

// What the workers' lines say of each (owner, revision), and of each acquisition.
struct WorkerFacts {
  std::map<OwnerToken, std::int64_t> acquired_at;       // acquire.ok
  std::map<OwnerToken, std::int64_t> release_began_at;  // release.invoke (the first)
  // The keep-alives answered: (owner, token) and when each was sent.
  std::vector<std::pair<OwnerToken, std::int64_t>> renewals;
  // Each acquisition that ended without the lock: (owner, invoked, ended,
  // reason). Its key, put in between, was deleted by the owner unless the
  // session had already expired.
  struct GivenUp {
    std::string owner;
    std::int64_t invoked = 0;
    std::int64_t ended = 0;
    std::string reason;
  };
  std::vector<GivenUp> given_up;
};

WorkerFacts facts_of(const std::vector<Json>& worker_lines) {
  WorkerFacts facts;
  std::map<std::string, std::int64_t> invoked;  // by call
  for (const Json& line : worker_lines) {
    const std::string event = line.value(field::kEvent, std::string{});
    const std::string owner = line.value(field::kProc, std::string{});
    const std::int64_t t = line.value(field::kTime, std::int64_t{0});
    const std::string call = line.value(field::kCall, std::string{});
    const std::int64_t token = line.contains(field::kToken) && line[field::kToken].is_number_integer()
                                   ? line[field::kToken].get<std::int64_t>()
                                   : 0;
    if (event == event_kind_name(EventKind::kAcquireInvoke) || event == event_kind_name(EventKind::kRenewInvoke)) {
      invoked[call] = t;
    } else if (event == event_kind_name(EventKind::kReleaseInvoke)) {
      facts.release_began_at.try_emplace({owner, token}, t);
    } else if (event == event_kind_name(EventKind::kAcquireOk)) {
      facts.acquired_at.try_emplace({owner, token}, t);
    } else if (event == event_kind_name(EventKind::kRenewOk) && invoked.contains(call)) {
      facts.renewals.push_back({{owner, token}, invoked[call]});
    } else if (event == event_kind_name(EventKind::kAcquireFail) && invoked.contains(call)) {
      facts.given_up.push_back({owner, invoked[call], t, line.value(field::kReason, std::string{})});
    }
  }
  return facts;
}

// Which member led in each term, and from when.
class Leadership {
 public:
  Leadership(const std::vector<ConsensusKeyChange>& changes, const std::vector<ConsensusLeadership>& seen) {
    for (const ConsensusLeadership& leadership : seen) {
      Term& term = terms_[leadership.raft_term];
      term.from = std::min(term.from, leadership.t);
      if (!term.leader) term.leader = leadership.leader;
    }
    for (const ConsensusKeyChange& change : changes) {
      if (change.raft_term == 0) continue;
      Term& term = terms_[change.raft_term];
      term.from = std::min(term.from, change.t);
    }
    // A term nobody was seen leading in (its leader was asked too late) keeps the leader before it.
    std::optional<std::size_t> last;
    for (auto& [number, term] : terms_) {
      if (!term.leader) term.leader = last.value_or(0);
      last = term.leader;
    }
  }

  // The terms after the first, in order: each a new leader's take-over.
  [[nodiscard]] std::vector<std::pair<std::int64_t, std::size_t>> take_overs() const {
    std::vector<std::pair<std::int64_t, std::size_t>> found;
    for (auto term = terms_.begin(); term != terms_.end(); ++term) {
      if (term != terms_.begin()) found.emplace_back(term->second.from, *term->second.leader);
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  // The member leading at `t`: the one of the latest term begun by then.
  [[nodiscard]] std::size_t leader_at(std::int64_t t) const {
    std::size_t leader = 0;
    std::int64_t latest = INT64_MIN;
    for (const auto& [number, term] : terms_) {
      if (term.from <= t && term.from >= latest) {
        latest = term.from;
        leader = *term.leader;
      }
    }
    return leader;
  }

 private:
  struct Term {
    std::int64_t from = INT64_MAX;
    std::optional<std::size_t> leader;
  };
  std::map<std::uint64_t, Term> terms_;
};

struct Grant {
  std::string owner;
  std::int64_t token = 0;
  std::int64_t from = 0;
  std::int64_t until = INT64_MAX;  // its end; INT64_MAX: held at the run's end
};

class Derivation {
 public:
  Derivation(const WorkerFacts& facts, const Leadership& leadership, const ConsensusLeaseInputs& inputs)
      : facts_{facts}, leadership_{leadership}, inputs_{inputs} {}

  void apply(const ConsensusKeyChange& change) {
    if (!change.deleted) {
      // A put of a key that exists already (its version rises) changes no place in the queue.
      if (change.create_revision != change.revision || by_key_.contains(change.key)) return;
      queue_[change.create_revision] = change.owner;
      by_key_[change.key] = change.create_revision;
      if (!holder_) grant_head(change.t);
      return;
    }
    const auto found = by_key_.find(change.key);
    if (found == by_key_.end()) return;  // put before the watch began
    const std::int64_t revision = found->second;
    by_key_.erase(found);
    const std::string owner = queue_.at(revision);
    queue_.erase(revision);
    if (!holder_ || holder_->token != revision) return;  // a waiter gave up or its session ended
    end_holder(change.t, owner, revision);
  }

  void adopt(std::int64_t t, std::size_t leader) {
    if (!holder_) return;
    out_.push_back(line(t, leader, EventKind::kLeaseAdopt,
                        {{field::kLock, inputs_.lock_name},
                         {field::kOwner, holder_->owner},
                         {field::kToken, holder_->token},
                         {field::kLeaseNs, inputs_.ttl_ns + inputs_.election_timeout_ns}}));
  }

  std::vector<Json> finish() {
    if (holder_) grants_.push_back(*holder_);
    for (const auto& [owner_token, sent] : facts_.renewals) {
      for (const Grant& grant : grants_) {
        if (grant.owner != owner_token.first || grant.token != owner_token.second) continue;
        if (sent < grant.from || sent >= grant.until) continue;
        out_.push_back(line(sent, leadership_.leader_at(sent), EventKind::kLeaseRenew,
                            {{field::kLock, inputs_.lock_name},
                             {field::kOwner, grant.owner},
                             {field::kToken, grant.token},
                             {field::kLeaseNs, inputs_.ttl_ns}}));
      }
    }
    std::stable_sort(out_.begin(), out_.end(), [](const Json& a, const Json& b) {
      return a[field::kTime].get<std::int64_t>() < b[field::kTime].get<std::int64_t>();
    });
    return std::move(out_);
  }

 private:
  // The holder's key is gone at `t`: released by its owner, or expired.
  void end_holder(std::int64_t t, const std::string& owner, std::int64_t revision) {
    // The next holder, if its owner heard of its grant before we did, moves the end back with it.
    const std::int64_t next_grant = queue_.empty() ? t : std::min(t, acquired_at(queue_.begin()->second, queue_.begin()->first, t));
    const std::int64_t ended = std::max(holder_->from, next_grant);
    const std::size_t leader = leadership_.leader_at(t);
    if (released_by_owner(owner, revision, t)) {
      out_.push_back(line(ended, leader, EventKind::kLeaseRelease,
                          {{field::kLock, inputs_.lock_name}, {field::kOwner, owner}, {field::kToken, revision}, {field::kBy, owner}}));
    } else {
      out_.push_back(line(ended, leader, EventKind::kLeaseExpire,
                          {{field::kLock, inputs_.lock_name}, {field::kOwner, owner}, {field::kToken, revision}}));
    }
    holder_->until = ended;
    grants_.push_back(*holder_);
    holder_.reset();
    if (!queue_.empty()) grant_head(ended);
  }

  void grant_head(std::int64_t t) {
    const auto& [revision, owner] = *queue_.begin();
    const std::int64_t granted = acquired_at(owner, revision, t);
    holder_ = Grant{owner, revision, granted};
    out_.push_back(line(granted, leadership_.leader_at(t), EventKind::kLeaseGrant,
                        {{field::kLock, inputs_.lock_name},
                         {field::kOwner, owner},
                         {field::kToken, revision},
                         {field::kLeaseNs, inputs_.ttl_ns}}));
  }

  // When the grant of (owner, revision) happened at the latest: `heard`, or
  // the owner's acquire.ok when that came first.
  [[nodiscard]] std::int64_t acquired_at(const std::string& owner, std::int64_t revision, std::int64_t heard) const {
    const auto found = facts_.acquired_at.find({owner, revision});
    return found == facts_.acquired_at.end() ? heard : std::min(heard, found->second);
  }

  // The owner deleted its key: it had begun to release it, or gave up the
  // acquisition that put it (a session found expired was the lessor's doing).
  [[nodiscard]] bool released_by_owner(const std::string& owner, std::int64_t revision, std::int64_t deleted_at) const {
    const auto release = facts_.release_began_at.find({owner, revision});
    if (release != facts_.release_began_at.end() && release->second <= deleted_at) return true;
    const std::int64_t granted_at = holder_->from;
    return std::ranges::any_of(facts_.given_up, [&](const WorkerFacts::GivenUp& given_up) {
      return given_up.owner == owner && given_up.invoked <= granted_at && granted_at <= given_up.ended &&
             given_up.reason != vocabulary::reason::kSessionExpired;
    });
  }

  [[nodiscard]] Json line(std::int64_t t, std::size_t leader, EventKind event, Json fields) const {
    Json made{{field::kTime, t}, {field::kProc, proc_name(leader)}, {field::kEvent, event_kind_name(event)}};
    for (auto& [key, value] : fields.items()) made[key] = value;
    return made;
  }

  [[nodiscard]] std::string proc_name(std::size_t leader) const {
    if (inputs_.members <= 1) return vocabulary::service_kind::kConsensus;
    return model::consensus_member_name(static_cast<int>(leader));
  }

  const WorkerFacts& facts_;
  const Leadership& leadership_;
  const ConsensusLeaseInputs& inputs_;
  std::map<std::int64_t, std::string> queue_;  // create revision → owner
  std::map<std::string, std::int64_t> by_key_;  // key → create revision
  std::optional<Grant> holder_;
  std::vector<Grant> grants_;  // ended ones, then the last
  std::vector<Json> out_;
};

}  // namespace

std::vector<Json> consensus_leases(const std::vector<ConsensusKeyChange>& changes,
                                   const std::vector<ConsensusLeadership>& leaderships,
                                   const std::vector<Json>& worker_lines, const ConsensusLeaseInputs& inputs) {
  const WorkerFacts facts = facts_of(worker_lines);
  const Leadership leadership{changes, leaderships};
  Derivation derivation{facts, leadership, inputs};
  const auto take_overs = leadership.take_overs();
  auto next_take_over = take_overs.begin();
  std::int64_t latest = INT64_MIN;  // changes are heard in revision order, never earlier than the one before
  for (const ConsensusKeyChange& change : changes) {
    ConsensusKeyChange heard = change;
    heard.t = std::max(heard.t, latest);
    latest = heard.t;
    for (; next_take_over != take_overs.end() && next_take_over->first <= heard.t; ++next_take_over) {
      derivation.adopt(next_take_over->first, next_take_over->second);
    }
    derivation.apply(heard);
  }
  for (; next_take_over != take_overs.end(); ++next_take_over) derivation.adopt(next_take_over->first, next_take_over->second);
  return derivation.finish();
}

}  // namespace locksim::live
