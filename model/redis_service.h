#pragma once
// The `redis` and `redis-failover` services: one instance (redis-0), or a
// primary (redis-0) with an asynchronous replica (redis-1).
//
// Failover, as Sentinel carries it out (docs/models.md): the `failover` fault
// makes the primary unreachable from Sentinel — crashed, or partitioned but
// alive with some workers on its side (split brain). Sentinel acts only once
// it has been unreachable for `down_after`; `promotion` later the replica
// serves as primary with whatever it has received. Until then nobody can
// acquire through the new primary. A crashed old primary comes back, if
// restarted, as the new primary's replica; a partitioned one keeps serving
// the workers on its side until the partition heals. Sentinel demotes it only
// 10 to 11 s after the heal (sentinel.c: a returning instance must report
// "master" for over 8 s, and Sentinel asks it every 10 s: convert_delay());
// then it resynchronises from the new primary, losing what it accepted. A
// partition that heals before `down_after` causes no failover at all.
// Clients and storage's validation follow the promotion (redis_sentinel.h).

#include <deque>
#include <memory>
#include <optional>

#include "model/lock_service.h"
#include "model/redis_instance.h"
#include "model/redis_sentinel.h"

namespace locksim::model {

class RedisService final : public LockService {
 public:
  RedisService(sim::Simulation& simulation, const SystemOptions& options);

  [[nodiscard]] std::vector<sim::NodeId> nodes() const override { return nodes_; }
  [[nodiscard]] std::unique_ptr<LockClient> make_client() const override;
  // The primary first, then the replica (asked if the primary does not answer).
  [[nodiscard]] std::vector<sim::NodeId> validators() const override;
  [[nodiscard]] std::string describe_json() const override;
  // Starts a failover; false while one is already under way (Sentinel is
  // failing over already) or without a replica.
  bool failover(sim::Simulation& simulation, const FailoverFault& fault) override;

  [[nodiscard]] const RedisInstance& instance(std::size_t index) const { return instances_[index]; }
  [[nodiscard]] RedisInstance* redis_instance_on(sim::NodeId node) override {
    for (std::size_t index = 0; index < nodes_.size(); ++index) {
      if (nodes_[index] == node) return &instances_[index];
    }
    return nullptr;
  }

 private:
  // The failover under way: from the fault until the old primary is dealt with.
  struct PendingFailover {
    FailoverPrimary primary = FailoverPrimary::kCrash;
    std::size_t old_primary = 0;
    std::optional<sim::PartitionId> cut;  // split brain, until healed
    bool detected = false;
    bool promoted = false;
  };

  void cut_off_old_primary(sim::Simulation& simulation, const FailoverFault& fault);
  void detect(sim::Simulation& simulation);
  void promote(sim::Simulation& simulation);
  void heal(sim::Simulation& simulation);
  void demote_returning_old_primary(sim::Simulation& simulation);
  // How long after a split brain heals Sentinel converts the old primary.
  [[nodiscard]] sim::Duration convert_delay();

  SystemOptions options_;
  std::deque<RedisInstance> instances_;  // deque: boot functions hold their addresses
  std::vector<sim::NodeId> nodes_;
  std::shared_ptr<RedisSentinel> sentinel_ = std::make_shared<RedisSentinel>();
  std::optional<PendingFailover> failover_;
  sim::Rng sentinel_rng_;  // Sentinel's own timing, a stream of its own
};

}  // namespace locksim::model
