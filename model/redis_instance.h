#pragma once
// One simulated Redis instance holding lock keys, as the lock recipes use it:
//
// - acquire: `SET lock value NX PX lease` and `INCR` of a token counter in one
//   Lua script (atomic); with NX off, a plain `SET PX` (get-then-set's second
//   step), which replaces a live key: `lease.lost` reason overwritten;
// - compare-and-delete and compare-and-extend scripts, plain `DEL`, plain
//   `PEXPIRE` (extends whoever holds the key: `lease.renew` names that owner), `GET`;
// - expiry decided by the instance's wall clock (Redis compares expiry with
//   mstime(), still in 7.x): a key is gone the moment that clock passes its deadline, recorded as `lease.expire` then (a watcher per
//   key for active expiry, plus a lazy check on every access);
// - persistence on restart: none (forget keys and counter); everysec (after
//   a process crash everything, since the AOF was written to the kernel
//   before each reply; after a power loss the state at the last fsync,
//   which Redis 7.0 starts in the event-loop turn of a change whenever its
//   wall clock's whole second has moved past the last fsync's, and else in
//   the first turn after it); always (everything);
// - eviction under memory pressure (maxmemory-policy): noeviction, or
//   volatile-ttl / volatile-lru / allkeys-lru among the lock keys and the
//   other applications' keys, sampled as Redis 7.0 does (evict.c): each key
//   freed samples maxmemory-samples keys of the policy's keyspace into a
//   pool of the 16 best candidates, kept across evictions, and evicts the
//   best that still exists; an evicted lock key is `lease.lost` reason
//   `evicted` (its owner is never told), shipped to a replica as a DEL;
//   allkeys-lru may also evict the token counter (a key with no TTL, idle
//   since the last grant's INCR), and the next INCR starts again at 1;
//   a primary that could not free the room (noeviction frees none) stays
//   over maxmemory while the pressure lasts, and answers a command that may
//   grow memory (CMD_DENYOOM: the acquire's SET and INCR) -OOM, while DEL
//   and PEXPIRE (a release, a renewal) still run (server.c processCommand;
//   a replica ignores maxmemory);
// - as a primary with a replica, every change ships to the replica after the
//   replication lag; a change not shipped when the primary crashes is lost.
//   A partition holds the stream (TCP), it does not break the link. A
//   restarted replica, or the replica of a restarted primary, has lost its
//   link: at its next replicationCron tick (once a second; at once on its own
//   start) it asks for the stream again, naming the replication ID it
//   followed. The same ID (the replica restarted): a partial resync, current
//   at once. Another (the primary restarted or was promoted): a full one, a
//   snapshot of all the primary holds taken at its first replicationCron
//   tick repl-diskless-sync-delay whole seconds of its clock after the
//   request (default 5: Redis 7.0 syncs diskless by default). Until the
//   snapshot arrives the replica keeps what it had (repl-diskless-load
//   disabled) and follows no stream; a request unanswered for repl-timeout
//   (60 s) is sent again.
//   Expiry ships as an absolute deadline (Redis 7 propagates `SET … PX` as
//   `PXAT`), which a promoted replica compares with its own clock.
//   A replica answers writes with READONLY until promoted, and a read of a
//   key its clock says has expired as if the key were gone (it deletes
//   nothing itself: it waits for the primary's DEL).
// - WAIT and min-replicas-to-write: a replica acknowledges the stream
//   (REPLCONF ACK) after each change when WAIT is in use and every second of
//   its clock when min-replicas-to-write is. A primary with
//   min-replicas-to-write counts its good replicas as Redis 7.0 does
//   (replication.c, refreshGoodSlavesCount): once a second (replicationCron)
//   and when a replica first acknowledges, a replica is good while the whole
//   seconds of its wall clock since the last acknowledgement are at most
//   min-replicas-max-lag's. Too few, and every request that runs a write
//   command is refused (NOREPLICAS): SET always, a plain DEL or PEXPIRE
//   always, a compare-and-delete or compare-and-extend script only when it
//   gets to its DEL or PEXPIRE (the key is the caller's: a script is checked
//   at its first write command, script.c scriptVerifyWriteCommandAllow).
//
// The instance object outlives crashes (it is the machine and its disk); its
// processes and in-memory data do not.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/options.h"
#include "model/protocol.h"
#include "sim/simulation.h"

namespace locksim::model {

enum class RedisRole { kPrimary, kReplica };

struct RedisKey {
  std::string owner;
  std::string value;
  std::int64_t token = 0;
  sim::Duration lease;     // Duration::max(): no expiry
  sim::LocalTime deadline;  // on this instance's wall clock; LocalTime::max(): never
  std::uint64_t last_used = 0;  // the instance's use count at its last access (LRU order)
};

struct RedisData {
  std::map<std::string, RedisKey> keys;
  std::int64_t token_counter = 0;
  std::uint64_t token_counter_last_used = 0;  // the INCR of the last grant (LRU order)
  // Other applications' keys (all written before the run, so used before any
  // lock key, with one shared TTL): how many are left.
  std::int64_t other_keys = 0;
};

struct RedisInstanceOptions {
  Persistence persistence = Persistence::kNone;  // what a restart keeps
  sim::Duration delayed_restart = sim::Duration::zero();  // after a restart, serve nothing for this long
  RedisRole role = RedisRole::kPrimary;
  Distribution replication_lag = Distribution::constant(sim::Duration::milliseconds(100));
  int min_replicas_to_write = 0;  // 0: off
  sim::Duration min_replicas_max_lag = sim::Duration::seconds(10);
  sim::Duration repl_diskless_sync_delay = sim::Duration::seconds(5);  // whole seconds count
  bool acknowledge_changes = false;       // a replica acks each change (clients use WAIT)
  bool acknowledge_every_second = false;  // a replica acks every second (min-replicas-to-write)
  RedisMemoryOptions memory;  // maxmemory-policy and the other keys it holds
};

class RedisInstance {
 public:
  RedisInstance(std::string name, RedisInstanceOptions options);

  [[nodiscard]] sim::NodeBoot boot();
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] RedisRole role() const { return options_.role; }
  [[nodiscard]] const RedisData& data() const { return data_; }

  // Ships every change to `replica` (this instance must be a primary).
  void set_replica(sim::NodeId replica) { replica_ = replica; }
  // Acknowledges the stream to `primary` (this instance must be a replica).
  void follow(sim::NodeId primary) { primary_ = primary; }
  // The replication ID of the stream it follows (the cluster has been up a
  // while: the replica's last full sync was of this primary's stream).
  void follow(sim::NodeId primary, std::string replication_id) {
    primary_ = primary;
    followed_replication_id_ = std::move(replication_id);
  }
  // A primary's replication ID: new at each start as a primary and at a promotion.
  [[nodiscard]] const std::string& replication_id() const { return replication_id_; }
  // Whether this replica follows its primary's stream (its link is up: it
  // has loaded a snapshot since it last lost the link).
  [[nodiscard]] bool in_sync() const { return link_up_; }
  // Failover: this replica becomes a primary with whatever it has; records
  // `replica.promote`, `lease.adopt` for each lease the old primary promised
  // that this copy holds and this clock says is live (from then on this
  // instance expires or releases it, at the replicated absolute deadline read
  // on its own clock), and `lease.lost` (reason failover, proc = the old
  // primary) for each lease the old primary promised that this copy lacks.
  // With the old primary still up (split brain) it still promises what it
  // holds: nothing is recorded lost now; rejoin() records it.
  enum class OldPrimary { kDown, kStillUp };
  void promote(sim::Simulation& simulation, const RedisInstance& old_primary, OldPrimary old_primary_state);
  // The machine loses power just before its crash: the next restart has only
  // what was fsynced (everysec: up to the last fsync), not what the kernel held.
  void lose_power() { power_lost_ = true; }
  // Memory pressure: frees the room of `keys` keys by the maxmemory policy,
  // now; returns how many it freed (fewer: the policy found no more). A
  // replica evicts nothing (replica-ignore-maxmemory, Redis's default since 5.0).
  int evict(sim::Context context, int keys);
  // A pressure whose room was not freed keeps memory over maxmemory until it
  // ends (+1 at its start, -1 at its end; they may overlap). It is the
  // machine's: other applications' data, which a restart loads again.
  void hold_over_maxmemory(int pressures) { pressures_over_maxmemory_ += pressures; }
  // Whatever restarts next comes back as a replica (Sentinel demotes the old primary).
  void demote() { options_.role = RedisRole::kReplica; replica_.reset(); }
  // What a REPLICAOF from Sentinel does when it arrives (the service carries
  // out the role change: promote() or rejoin()); `primary` empty: NO ONE.
  void on_replicaof(std::function<void(std::optional<sim::NodeId> primary)> action) {
    on_replicaof_ = std::move(action);
  }
  [[nodiscard]] bool lost_power() const { return power_lost_; }
  // Split brain healed: this old primary, still up, becomes `new_primary`'s
  // replica and takes over its data (a full resync). Every lease it still
  // promises (its clock has not passed the deadline) that the new primary
  // does not hold is recorded `lease.lost` reason failover (proc = this
  // instance): what it accepted while cut off is gone.
  void rejoin(sim::Simulation& simulation, const RedisInstance& new_primary, sim::NodeId new_primary_node);

 private:
  // How this process began: the node's first boot, or a restart (Redlock's delayed restart waits first).
  enum class Start { kFirstBoot, kRestart };
  void on_boot(sim::Context context);
  sim::Task<> serve(sim::Context context, Start start);
  sim::Task<> expire_when_due(sim::Context context, std::string lock, std::string value);
  // Ships `message` (a change or a snapshot) to the replica after a
  // replication-lag draw, never before what was shipped earlier.
  void ship_in_order(sim::Context context, sim::Payload message);
  sim::Task<> ship_when_due(sim::Context context, sim::Payload message, sim::LocalTime due);
  // appendfsync everysec as Redis 7.0 decides it (aof.c flushAppendOnlyFile,
  // run in every event-loop turn): an fsync starts when something is
  // unsynced and the wall clock's whole second is past the last fsync's
  // (`server.unixtime > aof_last_fsync`). A turn follows every request and
  // every serverCron tick (hz 10: fsync_on_cron).
  void fsync_if_second_moved(sim::Context context);
  sim::Task<> fsync_on_cron(sim::Context context);

  void handle(sim::Context context, const sim::Message& request);
  AcquireReply acquire(sim::Context context, const AcquireCommand& command);
  ReleaseReply release(sim::Context context, const ReleaseCommand& command);
  ExtendReply extend(sim::Context context, const ExtendCommand& command);
  void apply_replicated(sim::Context context, const ReplicateCommand& change);
  // min-replicas-to-write: too few good replicas at the last count.
  [[nodiscard]] bool refuses_writes() const;
  // Whether `request` gets to run a write command (NOREPLICAS refuses those).
  [[nodiscard]] bool runs_a_write(sim::Context context, const sim::Message& request);
  // refreshGoodSlavesCount, and replicationCron calling it once a second.
  void count_good_replicas(sim::Context context);
  sim::Task<> count_good_replicas_every_second(sim::Context context);
  void acknowledged(sim::Context context, const ReplicaAck& ack);
  void start_wait(sim::Context context, const sim::Message& request, const WaitCommand& command);
  // Answers every WAIT whose offset the replica has acknowledged, or every
  // WAIT still blocked (a demotion), with what was acknowledged.
  enum class WaitsToAnswer { kAcknowledged, kAll };
  void answer_waits(sim::Context context, WaitsToAnswer which);
  sim::Task<> time_out_wait(sim::Context context, std::uint64_t wait, sim::LocalTime deadline);
  sim::Task<> acknowledge_every_second(sim::Context context);
  // The replication link (replication.c): a replica that lost it asks for a
  // full resync; a primary asked for one sends its snapshot when it is due.
  void lose_link(sim::Context context, bool at_start);
  sim::Task<> resync_with_primary(sim::Context context, bool at_start);
  // A partial resync sends the data now (what the backlog replays); a full
  // one after repl-diskless-sync-delay.
  void answer_sync(sim::Context context, sim::NodeId replica, bool partial);
  sim::Task<> send_snapshot_when_due(sim::Context context, sim::LocalTime requested_at);
  void send_snapshot(sim::Context context);
  void load_snapshot(sim::Context context, const ReplicaSnapshot& snapshot);
  // The next tick of replicationCron, once a second from the process's start
  // (the monotonic clock), strictly after now.
  [[nodiscard]] sim::LocalTime next_replication_cron(sim::Context context) const;
  // On promotion: records lease.adopt for the copies of the old primary's live
  // leases and drops every other copy.
  void adopt_live_leases(sim::Context context, const RedisInstance& old_primary, sim::LocalTime old_clock);
  // Lazy expiry: drops `lock` if this instance's clock has passed its deadline.
  void expire_if_due(sim::Context context, const std::string& lock);
  // A read (GET, a validation): `lock`'s key as a client sees it, or null.
  const RedisKey* read_key(sim::Context context, const std::string& lock);
  void changed(sim::Context context, const std::string& lock);
  void watch_expiry(sim::Context context, const std::string& lock);
  // Marks `lock` as just used (LRU order).
  void touch(const std::string& lock);
  // One entry of the eviction pool (evict.c, EVPOOL_SIZE 16).
  struct EvictionCandidate {
    std::optional<std::string> lock;  // nullopt: the token counter, or one of the other applications' keys
    bool token_counter = false;
    std::int64_t score = 0;           // higher goes first: the nearest deadline (volatile-ttl), the longest idle (LRU)
  };
  // evictionPoolPopulate: samples the policy's keyspace into the pool; false
  // when there is nothing to sample (noeviction, or no key the policy takes).
  bool sample_into_eviction_pool(sim::Context context);
  // The best candidate that still exists, taken out of the pool (with the ghosts before it).
  [[nodiscard]] std::optional<EvictionCandidate> take_best_candidate(sim::LocalTime now);
  // The lock keys and other keys the policy may evict, and their scores.
  [[nodiscard]] std::vector<std::string> evictable_locks() const;
  [[nodiscard]] std::int64_t evictable_other_keys(sim::LocalTime now) const;
  [[nodiscard]] bool token_counter_evictable() const;
  [[nodiscard]] std::int64_t lock_score(const RedisKey& key) const;
  [[nodiscard]] std::int64_t other_keys_score() const;
  [[nodiscard]] bool other_keys_live(sim::LocalTime now) const;

  std::string name_;
  RedisInstanceOptions options_;
  RedisData data_;
  RedisData durable_;  // what survives a restart under everysec
  bool booted_before_ = false;
  std::function<void(std::optional<sim::NodeId>)> on_replicaof_;
  bool power_lost_ = false;  // the next restart follows a power loss, not a process crash
  int pressures_over_maxmemory_ = 0;
  // everysec: the wall clock's whole second at the last fsync (Redis sets it at start-up, too), and
  // whether a change came after it.
  std::int64_t last_fsync_second_ = 0;
  bool unsynced_ = false;
  std::uint64_t uses_ = 0;   // accesses so far: the LRU clock
  std::vector<EvictionCandidate> eviction_pool_;  // best last, as Redis keeps it; lost with the process
  std::optional<sim::NodeId> replica_;
  std::optional<sim::NodeId> primary_;
  sim::LocalTime started_at_;  // on the monotonic clock: replicationCron's phase
  // As a primary, its stream's ID (name:count); as a replica, the ID of the
  // stream it last followed, which its RDB from that sync keeps on disk
  // across a restart ("" when it has none).
  std::string replication_id_;
  std::string followed_replication_id_;
  int replication_ids_so_far_ = 0;
  void new_replication_id();
  // As a replica: whether the link is up, and whether a task is bringing it up.
  bool link_up_ = true;
  bool resyncing_ = false;
  // As a primary: whether the replica follows the stream, and whether a
  // full resync's snapshot is waiting for its due time.
  bool replica_online_ = true;
  bool snapshot_pending_ = false;
  sim::LocalTime last_shipment_due_;  // on the monotonic clock
  // Replication offsets: as a primary, of its last change and of the
  // replica's last acknowledgement; as a replica, of the last change applied.
  std::int64_t shipped_offset_ = 0;
  std::int64_t acknowledged_offset_ = 0;
  std::int64_t applied_offset_ = 0;
  std::optional<sim::LocalTime> last_acknowledged_at_;  // on this instance's clock
  int good_replicas_ = 0;  // min-replicas-to-write: at the last count
  struct BlockedWait {
    sim::Message request;
    std::int64_t offset = 0;  // the changes it waits for
    int replicas = 1;
  };
  std::map<std::uint64_t, BlockedWait> blocked_waits_;  // by arrival number
  std::uint64_t waits_so_far_ = 0;
};

}  // namespace locksim::model
