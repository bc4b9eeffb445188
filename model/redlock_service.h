#pragma once
// The `redlock` service: N independent Redis instances `redis-0` …
// `redis-(N-1)` with no replication and no knowledge of each other, as the
// Redlock algorithm (antirez, redis.io "Distributed Locks with Redis")
// assumes. Safety is the client's business (redlock_client.h): a lock is held
// iff a majority quorum N/2+1 of instances granted it within its validity.
//
// Each instance keeps its keys by its own clock, restarts with what its
// persistence keeps, and, with `delayed_restart`, answers nothing for that
// long after a restart (the remedy the Redlock page proposes for restarts
// without persistence). Instances share no state, so their tokens (per-instance
// INCR counters) do not agree: see the token caveat in redlock_client.h.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "model/lock_service.h"
#include "model/redis_instance.h"

namespace locksim::model {

class RedlockService final : public LockService {
 public:
  // The instance count when the options give none: the Redlock page's example deployment.
  static constexpr int kDefaultInstances = 5;

  RedlockService(sim::Simulation& simulation, const SystemOptions& options);

  // How many instances `service` asks for: `instances`, or kDefaultInstances.
  [[nodiscard]] static int instance_count(const ServiceOptions& service);
  // The majority of `instances`: instances / 2 + 1.
  [[nodiscard]] static int quorum_of(int instances) { return instances / 2 + 1; }

  [[nodiscard]] std::vector<sim::NodeId> nodes() const override { return nodes_; }
  [[nodiscard]] std::unique_ptr<LockClient> make_client() const override;
  [[nodiscard]] std::string describe_json() const override;
  [[nodiscard]] int quorum() const override { return quorum_of(static_cast<int>(nodes_.size())); }

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
};

}  // namespace locksim::model
