#pragma once
// The messages between workers (and storage) and the `consensus` service:
// an etcd/ZooKeeper-like lock built from a session (a lease with a TTL that
// keep-alives extend) and a key attached to it.
//
// A client names its session itself (the acquisition's unique value, which is
// also Lease::value), so a request whose answer was lost can still be undone.
// One session serves one acquisition: the lease the history speaks of *is*
// the session. Storage's ValidateCommand / ValidateReply (model/protocol.h)
// are answered too: a token is current iff it is the holder's revision.

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace locksim::model {

// Take `lock` for `owner`: the first request of an attempt (`create`) opens
// session `session` with `ttl` and puts the session's key in the lock's queue
// at a new revision; a later request of the same attempt (a poll) only keeps
// the session alive and asks again. The server answers at once if the key
// holds the lock, else holds the request for up to `wait` (its own clock) and
// answers when the key becomes the holder or the wait runs out.
struct ConsensusLockCommand {
  std::string lock;
  std::string owner;
  std::string session;
  sim::Duration ttl;   // Duration::max(): the session never expires
  sim::Duration wait;  // how long the server may hold the request
  bool create = true;
};

enum class ConsensusLockStatus {
  kGranted,      // the session's key holds the lock; `revision` is the token
  kWaiting,      // still queued behind a lower revision; poll again
  kSessionGone,  // the session expired or was revoked: the key left the queue
};

struct ConsensusLockReply {
  ConsensusLockStatus status = ConsensusLockStatus::kWaiting;
  std::int64_t revision = 0;  // the key's create revision, when granted
};

// Extend the session's TTL from the server's now (etcd LeaseKeepAlive).
struct ConsensusKeepAliveCommand {
  std::string session;
};
struct ConsensusKeepAliveReply {
  bool alive = false;
};

// Delete the session's key and revoke the session (etcd Unlock + session
// Close; a ZooKeeper client deleting its node and closing). `requester` is
// recorded as `by`.
struct ConsensusUnlockCommand {
  std::string lock;
  std::string session;
  std::string requester;
};
struct ConsensusUnlockReply {
  bool released = false;  // false: there was no such session any more
};

}  // namespace locksim::model
