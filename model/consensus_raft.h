#pragma once
// The messages the members of a `consensus` ensemble exchange: Raft's, as
// etcd's raft package sends them, reduced to what decides leadership and
// commitment. The replicated state itself is shared (consensus_member.h), so
// an append carries no entries: only how far the leader's log reaches.

#include <cstdint>

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

}  // namespace locksim::model
