#pragma once
// The `redis` and `redis-failover` services: one instance (redis-0), or a
// primary (redis-0) with an asynchronous replica (redis-1).
//
// Failover (Sentinel's decision, modelled as a fault): the primary, if still
// up, is taken down; the replica is promoted with whatever it has received;
// the old primary comes back, if restarted, as the new primary's replica.
// Clients and storage's validation follow the promotion (redis_sentinel.h).

#include <deque>
#include <memory>

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
  bool failover(sim::Simulation& simulation) override;

  [[nodiscard]] const RedisInstance& instance(std::size_t index) const { return instances_[index]; }
  [[nodiscard]] RedisInstance* redis_instance_on(sim::NodeId node) override {
    for (std::size_t index = 0; index < nodes_.size(); ++index) {
      if (nodes_[index] == node) return &instances_[index];
    }
    return nullptr;
  }

 private:
  SystemOptions options_;
  std::deque<RedisInstance> instances_;  // deque: boot functions hold their addresses
  std::vector<sim::NodeId> nodes_;
  std::shared_ptr<RedisSentinel> sentinel_ = std::make_shared<RedisSentinel>();
};

}  // namespace locksim::model
