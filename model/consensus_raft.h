#pragma once
// The messages the members of a `consensus` ensemble exchange: Raft's, as
// etcd's raft package sends them, reduced to what decides leadership and
// commitment. The replicated state itself is shared (consensus_member.h), so
// an append carries no entries: only how far the leader's log reaches.

#include <cstdint>
#include <string>

namespace locksim::model {

// A leader's append, also its heartbeat: "my log reaches `last_index`".
struct RaftAppend {
  std::int64_t term = 0;
  std::int64_t last_index = 0;
};

// A follower's answer: its log now reaches `last_index` (ok), or the sender's
// term is behind (not ok: `term` is the newer one).
struct RaftAppendAck {
  std::int64_t term = 0;
  std::int64_t last_index = 0;
  bool ok = false;
};

// A candidate asks for a vote; its log reaches `last_index`.
struct RaftVote {
  std::int64_t term = 0;
  std::int64_t last_index = 0;
};

struct RaftVoteAck {
  std::int64_t term = 0;
  bool granted = false;
};

// A member's lessor asks the leader to revoke a session it found expired
// (etcd forwards a follower's proposal to its leader): `number` tells the
// session from a later one of the same name.
struct RaftForwardedRevoke {
  std::string session;
  std::uint64_t number = 0;
};

}  // namespace locksim::model
