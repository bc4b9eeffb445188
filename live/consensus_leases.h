#pragma once
// The lock service's events of a live run against etcd, derived from what
// the coordinator saw of the lock's keys and of the cluster's leadership,
// so that the history says what the simulator's consensus service says:
//
// - Every contender puts its own key under the lock's prefix (Mutex.Lock);
//   the holder is the key with the lowest create revision. The coordinator
//   watches the prefix on every member and keeps each change once, in
//   revision order, at the moment it was first heard.
// - lease.grant: a key becomes the lowest, at the moment it was heard — or
//   at its owner's acquire.ok for that revision when that came earlier (the
//   worker heard it first; it cannot have been granted later). Its
//   lease_ns is the session's TTL: a waiter's session has been kept alive
//   up to then, and what is left of it is not observable.
// - The holder's key deleted ends the grant: lease.release (by the owner)
//   when the owner had begun to release that revision by then, or gave up
//   the acquisition that put the key (it deletes its key and revokes its
//   session); otherwise lease.expire — the leader's lessor revoked the
//   session. The next key is granted at the same moment; when its owner
//   heard first, the end moves back to that moment too, so that two grants
//   never overlap because of who heard first.
// - lease.renew: the holder's keep-alive that was answered (renew.ok),
//   placed at its renew.invoke — the leader refreshed the lease no earlier —
//   with the TTL, while the grant lasts.
// - lease.adopt: a new leader (a higher Raft term, seen in a member's status
//   or in a watch message's header) takes over the holder's lease, with the
//   TTL plus the election timeout, as etcd's lessor Promote does. It is
//   placed at the first sign of the term.
// Each line's proc is the leader of the moment: `consensus` for a single
// node, else consensus-<member>.
// Pure: the same inputs give the same lines.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim::live {

// A change under the lock's prefix, at the moment the coordinator first heard it.
struct ConsensusKeyChange {
  std::int64_t t = 0;  // the run's time
  std::uint64_t raft_term = 0;
  bool deleted = false;
  std::string key;
  std::string owner;                 // a put's value: the contender's name
  std::int64_t create_revision = 0;  // a put's
  std::int64_t revision = 0;         // the change's own (mod) revision
};

// A member seen leading in a term (a status answer), at the run's time.
struct ConsensusLeadership {
  std::int64_t t = 0;
  std::uint64_t raft_term = 0;
  std::size_t leader = 0;  // member index
};

struct ConsensusLeaseInputs {
  std::string lock_name;
  std::size_t members = 1;           // 1: the single node `consensus`
  std::int64_t ttl_ns = 0;           // the session's TTL as etcd granted it
  std::int64_t election_timeout_ns = 0;  // added to a lease a new leader adopts
};

// `changes` in revision order, `leaderships` in any order; `worker_lines`:
// every worker's lines (t, proc, ev, call, fields), each worker's in its own
// order. Returns lock-service lines with `t`, `proc`, `ev` and fields, in time order.
[[nodiscard]] std::vector<nlohmann::json> consensus_leases(const std::vector<ConsensusKeyChange>& changes,
                                                           const std::vector<ConsensusLeadership>& leaderships,
                                                           const std::vector<nlohmann::json>& worker_lines,
                                                           const ConsensusLeaseInputs& inputs);

}  // namespace locksim::live
