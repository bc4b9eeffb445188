#pragma once
// The messages of the modelled system. Redis-like commands go from workers
// (and storage, to validate) to lock-service instances; storage commands go
// from workers to storage; replication goes from a Redis primary to its
// replica; session commands go to the consensus service.
//
// A lease's `owner` is the worker's name (what the history records); its
// `value` is unique per acquisition (the random value a real client puts in
// the key), so a compare-and-delete by an older acquisition of the same
// worker does not delete a newer one.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/message.h"
#include "sim/time.h"

namespace locksim::model {

// --- Redis-like instance commands ----------------------------------------------------

// SET lock value NX PX lease, then INCR the token counter: one Lua script.
// With `only_if_absent` false it is a plain SET PX (the second step of get-then-set).
struct AcquireCommand {
  std::string lock;
  std::string owner;
  std::string value;
  sim::Duration lease;  // Duration::max() = no expiry
  bool only_if_absent = true;
};
// What a Redis instance answers a lock command (acquire, release, extend):
// exactly one of these.
enum class LockAnswer {
  kDone,        // granted, deleted, extended
  kRefused,     // the key's state says no: held by another, not this owner's
  kReadOnly,    // sent to a replica: READONLY
  kNoReplicas,  // min-replicas-to-write not met: NOREPLICAS
  kOutOfMemory,  // over maxmemory, a command that may grow memory: -OOM
};

struct AcquireReply {
  LockAnswer answer = LockAnswer::kRefused;
  std::int64_t token = 0;  // when kDone
};

struct GetCommand {
  std::string lock;
};
struct GetReply {
  std::optional<std::string> value;
};

// compare-and-delete (`compare`), or a plain DEL.
struct ReleaseCommand {
  std::string lock;
  std::string requester;  // the worker asking, recorded as `by`
  std::string value;      // compared when `compare`
  bool compare = true;
};
struct ReleaseReply {
  LockAnswer answer = LockAnswer::kRefused;
};

// compare-and-extend (PEXPIRE if the value is still mine), or with
// `compare` off a plain PEXPIRE, which extends whoever holds the key.
struct ExtendCommand {
  std::string lock;
  std::string value;
  sim::Duration lease;
  bool compare = true;
};
struct ExtendReply {
  LockAnswer answer = LockAnswer::kRefused;
  std::int64_t token = 0;  // when kDone
};

// Storage asks the service whether `token` is the lock's current one.
struct ValidateCommand {
  std::string lock;
  std::int64_t token = 0;
};
struct ValidateReply {
  bool current = false;
};

// One write of a primary, shipped to its replica after the replication lag.
struct ReplicateCommand {
  std::string lock;      // empty: a change of the token counter alone (its eviction)
  bool present = false;  // false: the key was deleted
  std::string owner;
  std::string value;
  std::int64_t token = 0;
  sim::Duration lease;
  sim::LocalTime deadline;  // on the primary's clock, as Redis ships absolute expiry times
  std::int64_t token_counter = 0;
  std::int64_t offset = 0;  // the primary's replication offset after this change
};

// A replica's acknowledgement of the replication stream up to `offset`
// (REPLCONF ACK): after each change when WAIT is in use, every second when
// min-replicas-to-write is.
struct ReplicaAck {
  std::int64_t offset = 0;
};

// The replication link is closed: a promoted replica frees its master client
// (replicationUnsetMaster), or a restarted primary's replica finds its
// connection reset. The FIN, behind whatever the link still held.
struct ReplicationClosed {};

// A replica whose link is down asks its primary for the stream again (PSYNC),
// naming the replication ID of the stream it last followed. The same ID as
// the primary's: a partial resync (the backlog brings it up to date at once);
// another (the primary restarted or was promoted since): a full one.
struct SyncRequest {
  std::string replication_id;
};

// A resynchronisation's snapshot (a full one's RDB; for a partial one, what
// the backlog replays, which brings the replica to the same): every key of the primary,
// its token counter, the other applications' keys, and the replication
// offset the stream continues from. Each key as a ReplicateCommand that
// sets it (its own counter and offset unused: the snapshot's are).
struct ReplicaSnapshot {
  std::string replication_id;  // of the stream that goes on behind it
  std::vector<ReplicateCommand> keys;
  std::int64_t token_counter = 0;
  std::int64_t other_keys = 0;
  std::int64_t offset = 0;
};

// Sentinel's commands to an instance (redis-failover): PING, INFO (of which
// the model keeps the role) and REPLICAOF: NO ONE (`primary` empty) to
// promote a replica, or a primary's address to make an instance its replica.
struct SentinelPing {};
struct SentinelPong {};
struct InfoCommand {};
struct InfoReply {
  bool primary = false;
};
struct ReplicaofCommand {
  std::optional<sim::NodeId> primary;
};

// WAIT numreplicas timeout: blocks until that many replicas acknowledged every
// change made before it, or the timeout (the primary's clock); answers how many did.
struct WaitCommand {
  int replicas = 1;
  sim::Duration timeout;
};
struct WaitReply {
  int acknowledged = 0;
};

// --- storage commands -----------------------------------------------------------------

struct ReadCommand {
  std::string key;
  std::string reader;
  std::optional<std::int64_t> token;  // only when reads are fenced
};
struct ReadReply {
  bool accepted = true;
  std::int64_t value = 0;
  std::string reason;  // when rejected: "stale-token" | "not-current"
};

struct WriteCommand {
  std::string key;
  std::int64_t value = 0;
  std::string writer;
  std::optional<std::int64_t> token;  // absent when fencing is off
  std::optional<std::string> request_id;
  std::optional<std::int64_t> job;
};
struct WriteReply {
  bool accepted = false;
  std::string reason;  // when rejected: "stale-token" | "duplicate-request" | "not-current"
};

// --- payments commands ----------------------------------------------------------------

// One charge of a customer (the billing job), sent to the payments node. It
// accepts no fencing token: `token` travels only so the history shows that a
// token was there and changed nothing.
struct ChargeCommand {
  std::int64_t job = 0;
  std::string writer;
  std::optional<std::string> request_id;  // the idempotency key, when the client sends one
  std::optional<std::int64_t> token;
};
// `charged`: the customer stands charged — by this call, or (`replayed`) by an
// earlier one with the same idempotency key, whose result a payments API returns again.
struct ChargeReply {
  bool charged = true;
  bool replayed = false;
};

}  // namespace locksim::model
