#pragma once
// One simulated Redis instance holding lock keys, as the lock recipes use it:
//
// - acquire: `SET lock value NX PX lease` and `INCR` of a token counter in one
//   Lua script (atomic); with NX off, a plain `SET PX` (get-then-set's second
//   step), which replaces a live key: `lease.lost` reason overwritten;
// - compare-and-delete and compare-and-extend scripts, plain `DEL`, `GET`;
// - expiry decided by the instance's own clock: a key is gone the moment the
//   clock passes its deadline, recorded as `lease.expire` then (a watcher per
//   key for active expiry, plus a lazy check on every access);
// - persistence on restart: none (forget keys and counter), everysec (the
//   state at the last whole second of its clock), always (everything);
// - as a primary with a replica, every change ships to the replica after the
//   replication lag; a change not shipped when the primary crashes is lost.
//   Expiry ships as an absolute deadline (Redis 7 propagates `SET … PX` as
//   `PXAT`), which a promoted replica compares with its own clock.
//   A replica answers writes with READONLY until promoted.
//
// The instance object outlives crashes (it is the machine and its disk); its
// processes and in-memory data do not.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

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
  sim::LocalTime deadline;  // on this instance's clock; LocalTime::max(): never
};

struct RedisData {
  std::map<std::string, RedisKey> keys;
  std::int64_t token_counter = 0;
};

struct RedisInstanceOptions {
  Persistence persistence = Persistence::kNone;  // what a restart keeps
  sim::Duration delayed_restart = sim::Duration::zero();  // after a restart, serve nothing for this long
  RedisRole role = RedisRole::kPrimary;
  Distribution replication_lag = Distribution::constant(sim::Duration::milliseconds(100));
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
  // Failover: this replica becomes a primary with whatever it has; records
  // `replica.promote`, `lease.adopt` for each lease the old primary promised
  // that this copy holds and this clock says is live (from then on this
  // instance expires or releases it, at the replicated absolute deadline read
  // on its own clock), and `lease.lost` (reason failover, proc = the old
  // primary) for each lease the old primary promised that this copy lacks.
  void promote(sim::Simulation& simulation, const RedisInstance& old_primary);
  // Whatever restarts next comes back as a replica (Sentinel demotes the old primary).
  void demote() { options_.role = RedisRole::kReplica; replica_.reset(); }

 private:
  void on_boot(sim::Context context);
  sim::Task<> serve(sim::Context context, bool after_restart);
  sim::Task<> expire_when_due(sim::Context context, std::string lock, std::string value);
  sim::Task<> ship_when_due(sim::Context context, ReplicateCommand change, sim::LocalTime due);
  sim::Task<> persist_every_second(sim::Context context);

  void handle(sim::Context context, const sim::Message& request);
  AcquireReply acquire(sim::Context context, const AcquireCommand& command);
  ReleaseReply release(sim::Context context, const ReleaseCommand& command);
  ExtendReply extend(sim::Context context, const ExtendCommand& command);
  void apply_replicated(sim::Context context, const ReplicateCommand& change);
  // On promotion: records lease.adopt for the copies of the old primary's live
  // leases and drops every other copy.
  void adopt_live_leases(sim::Context context, const RedisInstance& old_primary, sim::LocalTime old_clock);
  // Lazy expiry: drops `lock` if this instance's clock has passed its deadline.
  void expire_if_due(sim::Context context, const std::string& lock);
  void changed(sim::Context context, const std::string& lock);
  void watch_expiry(sim::Context context, const std::string& lock);

  std::string name_;
  RedisInstanceOptions options_;
  RedisData data_;
  RedisData durable_;  // what survives a restart under everysec
  bool booted_before_ = false;
  std::optional<sim::NodeId> replica_;
  sim::LocalTime last_shipment_due_;
};

}  // namespace locksim::model
