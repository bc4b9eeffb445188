#include "model/redis_service.h"

#include <fmt/core.h>

#include "model/redis_lock_client.h"

namespace locksim::model {

RedisService::RedisService(sim::Simulation& simulation, const SystemOptions& options) : options_{options} {
  const bool with_replica = options.service.kind == ServiceKind::kRedisFailover;
  const int count = with_replica ? 2 : 1;
  for (int index = 0; index < count; ++index) {
    RedisInstanceOptions instance_options;
    instance_options.persistence = options.service.persistence;
    instance_options.memory = options.service.memory;
    instance_options.role = index == 0 ? RedisRole::kPrimary : RedisRole::kReplica;
    instance_options.replication_lag = options.service.replication_lag;
    instances_.emplace_back(fmt::format("redis-{}", index), instance_options);
    nodes_.push_back(simulation.add_node(instances_.back().name(), instances_.back().boot()));
  }
  if (with_replica) {
    instances_[0].set_replica(nodes_[1]);
  }
}

std::unique_ptr<LockClient> RedisService::make_client() const {
  return std::make_unique<RedisLockClient>(nodes_, sentinel_, options_.lock.name, options_.lock.lease,
                                           options_.workers.acquire, options_.workers.release,
                                           options_.service.request_timeout);
}

std::vector<sim::NodeId> RedisService::validators() const {
  std::vector<sim::NodeId> primary_first{nodes_[sentinel_->primary_index]};
  for (std::size_t index = 0; index < nodes_.size(); ++index) {
    if (index != sentinel_->primary_index) primary_first.push_back(nodes_[index]);
  }
  return primary_first;
}

std::string RedisService::describe_json() const {
  const char* kind = options_.service.kind == ServiceKind::kRedisFailover ? "redis-failover" : "redis";
  return fmt::format(R"({{"kind":"{}","instances":{},"quorum":1}})", kind, nodes_.size());
}

bool RedisService::failover(sim::Simulation& simulation) {
  if (nodes_.size() < 2) {
    return false;
  }
  const std::size_t old_primary = sentinel_->primary_index;
  const std::size_t promoted = 1 - old_primary;
  if (simulation.is_up(nodes_[old_primary])) {
    simulation.record(instances_[old_primary].name(), "crash", {});
    simulation.crash(nodes_[old_primary]);
  }
  instances_[old_primary].demote();
  instances_[promoted].promote(simulation, instances_[old_primary]);
  instances_[promoted].set_replica(nodes_[old_primary]);
  sentinel_->primary_index = promoted;
  return true;
}

}  // namespace locksim::model
