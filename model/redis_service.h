#pragma once
// The `redis` and `redis-failover` services: one instance (redis-0), or a
// primary (redis-0) with an asynchronous replica (redis-1).
//
// Failover, as Sentinel carries it out (docs/models.md): Sentinel
// (sentinel_monitor.h) fails over a primary it cannot reach for
// `down_after` — crashed, powered off, paused or cut off — by sending the
// replica REPLICAOF NO ONE; the replica then serves as primary with whatever
// it has received, and clients follow once Sentinel announces the switch.
// The `failover` fault is a shortcut for the usual causes: the primary
// crashes, or is partitioned from Sentinel, the replica and the other
// workers while the workers with it keep using it (split brain). A crashed
// old primary comes back, if restarted, as the new primary's replica; one
// that is still up stays a primary, serving whoever reaches it, until
// Sentinel converts it (10 to 11 s after reaching it again); then it
// resynchronises from the new primary, losing what it accepted.

#include <deque>
#include <memory>
#include <optional>

#include "model/lock_service.h"
#include "model/redis_instance.h"
#include "model/redis_sentinel.h"
#include "model/sentinel_monitor.h"

namespace locksim::model {

class RedisService final : public LockService {
 public:
  RedisService(sim::Simulation& simulation, const SystemOptions& options);

  [[nodiscard]] std::vector<sim::NodeId> nodes() const override { return nodes_; }
  [[nodiscard]] std::unique_ptr<LockClient> make_client() const override;
  // The primary first, then the replica (asked if the primary does not answer).
  [[nodiscard]] std::vector<sim::NodeId> validators() const override;
  [[nodiscard]] std::string describe_json() const override;
  // Carries out a `failover` fault; false without a replica, or while the
  // primary is down or cut off already or Sentinel is failing over.
  bool failover(sim::Simulation& simulation, const FailoverFault& fault) override;

  [[nodiscard]] const RedisInstance& instance(std::size_t index) const { return instances_[index]; }
  [[nodiscard]] RedisInstance* redis_instance_on(sim::NodeId node) override {
    for (std::size_t index = 0; index < nodes_.size(); ++index) {
      if (nodes_[index] == node) return &instances_[index];
    }
    return nullptr;
  }

 private:
  void cut_off_primary(sim::Simulation& simulation, const FailoverFault& fault, std::size_t primary);
  void heal(sim::Simulation& simulation, std::size_t old_primary);
  // Sentinel's REPLICAOF reached instance `index`.
  void replicaof(sim::Simulation& simulation, std::size_t index, std::optional<sim::NodeId> primary);
  void promote(sim::Simulation& simulation, std::size_t promoted);
  void rejoin(sim::Simulation& simulation, std::size_t old_primary, std::size_t new_primary);

  SystemOptions options_;
  std::deque<RedisInstance> instances_;  // deque: boot functions hold their addresses
  std::vector<sim::NodeId> nodes_;
  std::shared_ptr<RedisSentinel> sentinel_ = std::make_shared<RedisSentinel>();
  std::unique_ptr<SentinelMonitor> monitor_;  // redis-failover only
  std::optional<sim::PartitionId> failover_cut_;  // a split-brain `failover` fault, until it heals
};

}  // namespace locksim::model
