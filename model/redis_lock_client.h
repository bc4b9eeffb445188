#pragma once
// The client of a single Redis lock (`redis`) or of a primary with a replica
// (`redis-failover`), as the common recipes write it:
//
// - set-nx-px: one `SET lock value NX PX lease` (+ INCR token) round trip;
//   get-then-set: `GET`, then if nil `SET PX` — two round trips, the race;
// - compare-and-delete / plain DEL release; compare-and-extend renewal, or a
//   plain PEXPIRE, which "renews" another owner's key too (H13);
// - the lease is believed valid until the worker's clock, read when the
//   request was sent, plus the lease.
//
// With a replica it sends every request to the instance Sentinel names as
// the primary (redis_sentinel.h), so after a failover the holder's renewals
// and release reach the promoted replica, as a Sentinel-aware client's do.
//
// With `wait_replicas` it sends `WAIT numreplicas timeout` after each grant
// (Redisson's checkLockSyncedSlaves); a grant fewer replicas acknowledged in
// time is given back (compare-and-delete) and the acquire fails with
// `not-replicated`, so the worker never acts on it.

#include <memory>
#include <vector>

#include "model/lock_client.h"
#include "model/redis_sentinel.h"

namespace locksim::model {

class RedisLockClient final : public LockClient {
 public:
  // `sentinel` names the primary among `instances` (it outlives the client).
  RedisLockClient(std::vector<sim::NodeId> instances, std::shared_ptr<const RedisSentinel> sentinel,
                  std::string lock, std::optional<sim::Duration> lease, AcquireMethod acquire_method,
                  ReleaseMethod release_method, RenewCommand renew_command, sim::Duration request_timeout,
                  std::optional<WaitReplicas> wait_replicas = std::nullopt,
                  SentinelDiscovery discovery = SentinelDiscovery::kSwitchMaster);

  sim::Task<AcquireOutcome> acquire(sim::Context context, std::string owner, std::string value) override;
  sim::Task<RenewOutcome> renew(sim::Context context, Lease lease) override;
  sim::Task<ReleaseOutcome> release(sim::Context context, std::string owner, Lease lease) override;

 private:
  // One request to the primary: the instance Sentinel names when it is sent
  // (switch-master), or the one this client last asked Sentinel for, until
  // a request to it fails (on-error).
  sim::Task<std::optional<sim::Message>> ask_primary(sim::Context context, sim::Payload request);
  [[nodiscard]] std::size_t primary(sim::Context context);
  // SET NX PX (acquire), or a plain SET PX (get-then-set's second step).
  enum class SetWhen { kOnlyIfAbsent, kAlways };
  sim::Task<AcquireOutcome> set(sim::Context context, std::string owner, std::string value, SetWhen when);
  // WAIT after a grant: true iff enough replicas acknowledged it in time.
  sim::Task<bool> replicated(sim::Context context);

  std::vector<sim::NodeId> instances_;
  std::shared_ptr<const RedisSentinel> sentinel_;
  std::string lock_;
  sim::Duration lease_;
  AcquireMethod acquire_method_;
  ReleaseMethod release_method_;
  RenewCommand renew_command_;
  sim::Duration request_timeout_;
  std::optional<WaitReplicas> wait_replicas_;
  SentinelDiscovery discovery_;
  std::optional<std::size_t> connected_primary_;  // on-error: where its connections point
};

}  // namespace locksim::model
