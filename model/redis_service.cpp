#include "model/redis_service.h"

#include <fmt/core.h>

#include "model/redis_lock_client.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"

namespace locksim::model {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::fault_kind_name;
namespace field = vocabulary::field;

namespace {

// sentinel.c (Redis 7.0): Sentinel reconnects to an instance at most once per
// sentinel_ping_period (1 s); it asks a returning old primary for INFO every
// sentinel_info_period (10 s), and converts it to a replica only once it has
// reported "master" for more than sentinel_publish_period*4 (8 s): the first
// INFO after the reconnect starts that clock, the next one converts it.
constexpr sim::Duration kSentinelReconnectWithin = sim::Duration::seconds(1);
constexpr sim::Duration kSentinelInfoPeriod = sim::Duration::seconds(10);

}  // namespace

RedisService::RedisService(sim::Simulation& simulation, const SystemOptions& options)
    : options_{options}, sentinel_rng_{simulation.random_streams().stream("sentinel")} {
  const bool with_replica = options.service.kind == ServiceKind::kRedisFailover;
  const int count = with_replica ? 2 : 1;
  for (int index = 0; index < count; ++index) {
    RedisInstanceOptions instance_options;
    instance_options.persistence = options.service.persistence;
    instance_options.memory = options.service.memory;
    instance_options.role = index == 0 ? RedisRole::kPrimary : RedisRole::kReplica;
    instance_options.replication_lag = options.service.replication_lag;
    if (with_replica) {
      instance_options.min_replicas_to_write = options.service.min_replicas_to_write;
      instance_options.min_replicas_max_lag = options.service.min_replicas_max_lag;
      instance_options.acknowledge_changes = options.workers.wait_replicas.has_value();
      instance_options.acknowledge_every_second = options.service.min_replicas_to_write > 0;
    }
    instances_.emplace_back(fmt::format("redis-{}", index), instance_options);
    nodes_.push_back(simulation.add_node(instances_.back().name(), instances_.back().boot()));
  }
  if (with_replica) {
    instances_[0].set_replica(nodes_[1]);
    instances_[1].follow(nodes_[0]);
  }
}

std::unique_ptr<LockClient> RedisService::make_client() const {
  return std::make_unique<RedisLockClient>(nodes_, sentinel_, options_.lock.name, options_.lock.lease,
                                           options_.workers.acquire, options_.workers.release,
                                           options_.workers.renew_command,
                                           options_.service.request_timeout, options_.workers.wait_replicas);
}

std::vector<sim::NodeId> RedisService::validators() const {
  std::vector<sim::NodeId> primary_first{nodes_[sentinel_->primary_index]};
  for (std::size_t index = 0; index < nodes_.size(); ++index) {
    if (index != sentinel_->primary_index) primary_first.push_back(nodes_[index]);
  }
  return primary_first;
}

std::string RedisService::describe_json() const {
  return fmt::format(R"({{"kind":"{}","instances":{},"quorum":1}})", service_kind_name(options_.service.kind),
                     nodes_.size());
}

bool RedisService::failover(sim::Simulation& simulation, const FailoverFault& fault) {
  if (nodes_.size() < 2 || failover_) {
    return false;
  }
  failover_ = PendingFailover{fault.primary, sentinel_->primary_index, std::nullopt, false, false};
  // Scheduled, not done inline, so that the nemesis's fault.begin comes first.
  simulation.schedule(simulation.now(), [this, &simulation, fault] { cut_off_old_primary(simulation, fault); });
  simulation.schedule(simulation.now() + options_.service.down_after, [this, &simulation] { detect(simulation); });
  if (fault.primary == FailoverPrimary::kPartition) {
    simulation.schedule(simulation.now() + fault.heal_after, [this, &simulation] { heal(simulation); });
  }
  return true;
}

void RedisService::cut_off_old_primary(sim::Simulation& simulation, const FailoverFault& fault) {
  const std::size_t old_primary = failover_->old_primary;
  if (fault.primary == FailoverPrimary::kCrash) {
    if (simulation.is_up(nodes_[old_primary])) {
      simulation.record(instances_[old_primary].name(), EventKind::kCrash, {});
      simulation.crash(nodes_[old_primary]);
    }
    return;
  }
  // Split brain: the old primary and the workers with it on one side; the
  // replica, the other workers and Sentinel on the other; storage reaches both.
  std::vector<sim::NodeId> with_old{nodes_[old_primary]};
  std::vector<sim::NodeId> with_replica{nodes_[1 - old_primary]};
  for (const std::string& worker : fault.with_primary) {
    if (const auto node = simulation.find_node(worker)) with_old.push_back(*node);
  }
  for (const std::string& worker : fault.away_from_primary) {
    if (const auto node = simulation.find_node(worker)) with_replica.push_back(*node);
  }
  for (std::size_t index = 1; index < with_old.size(); ++index) {
    sentinel_->clients_with_old_primary.insert(with_old[index].index);
  }
  failover_->cut = simulation.network().cut(std::move(with_old), std::move(with_replica));
}

void RedisService::detect(sim::Simulation& simulation) {
  if (failover_->primary == FailoverPrimary::kPartition && !failover_->cut) {
    // Back before down-after-milliseconds ran out: Sentinel never saw it down.
    sentinel_->clients_with_old_primary.clear();
    failover_.reset();
    return;
  }
  failover_->detected = true;
  simulation.schedule(simulation.now() + options_.service.promotion, [this, &simulation] { promote(simulation); });
}

void RedisService::promote(sim::Simulation& simulation) {
  const std::size_t old_primary = failover_->old_primary;
  const std::size_t promoted = 1 - old_primary;
  const bool split_brain = failover_->primary == FailoverPrimary::kPartition;
  if (!split_brain) {
    if (simulation.is_up(nodes_[old_primary])) {  // restarted meanwhile by another fault: Sentinel still demotes it
      simulation.record(instances_[old_primary].name(), EventKind::kCrash, {});
      simulation.crash(nodes_[old_primary]);
    }
    instances_[old_primary].demote();
  }
  instances_[promoted].promote(simulation, instances_[old_primary],
                               split_brain ? RedisInstance::OldPrimary::kStillUp : RedisInstance::OldPrimary::kDown);
  instances_[promoted].set_replica(nodes_[old_primary]);
  sentinel_->primary_index = promoted;
  sentinel_->old_primary_index = old_primary;
  failover_->promoted = true;
  if (!split_brain) {
    failover_.reset();
  } else if (!failover_->cut) {
    heal(simulation);  // healed during the promotion: demote the old primary now
  }
}

void RedisService::heal(sim::Simulation& simulation) {
  if (failover_->cut) {
    simulation.network().heal(*failover_->cut);
    failover_->cut.reset();
    simulation.record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                      {{field::kKind, fault_kind_name(FaultKind::kFailover)},
                       {field::kTarget, instances_[failover_->old_primary].name()}});
  }
  if (!failover_->promoted) {
    return;  // detect() or promote() finishes the failover
  }
  // The workers cut off with the old primary reach Sentinel again and follow
  // the new primary; the old one stays a primary until Sentinel converts it.
  sentinel_->clients_with_old_primary.clear();
  simulation.schedule(simulation.now() + convert_delay(),
                      [this, &simulation] { demote_returning_old_primary(simulation); });
}

sim::Duration RedisService::convert_delay() {
  return sim::Distribution::uniform(sim::Duration::zero(), kSentinelReconnectWithin).sample(sentinel_rng_) +
         kSentinelInfoPeriod;
}

void RedisService::demote_returning_old_primary(sim::Simulation& simulation) {
  const std::size_t old_primary = failover_->old_primary;
  const std::size_t promoted = 1 - old_primary;
  instances_[old_primary].rejoin(simulation, instances_[promoted], nodes_[promoted]);
  failover_.reset();
}

}  // namespace locksim::model
