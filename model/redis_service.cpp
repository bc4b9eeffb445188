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

RedisService::RedisService(sim::Simulation& simulation, const SystemOptions& options)
    : options_{options} {
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
      instance_options.repl_diskless_sync_delay = options.service.repl_diskless_sync_delay;
      instance_options.acknowledge_changes = options.workers.wait_replicas.has_value();
      instance_options.acknowledge_every_second = options.service.min_replicas_to_write > 0;
    }
    instances_.emplace_back(fmt::format("redis-{}", index), instance_options);
    nodes_.push_back(simulation.add_node(instances_.back().name(), instances_.back().boot()));
  }
  if (!with_replica) return;
  instances_[0].set_replica(nodes_[1]);
  instances_[1].follow(nodes_[0], instances_[0].replication_id());
  for (std::size_t index = 0; index < instances_.size(); ++index) {
    instances_[index].on_replicaof([this, &simulation, index](std::optional<sim::NodeId> primary) {
      replicaof(simulation, index, primary);
    });
  }
  monitor_ = std::make_unique<SentinelMonitor>(options.service.down_after, sentinel_,
                                               simulation.random_streams().stream("sentinel"));
  monitor_->add_to(simulation, {{nodes_[0], nodes_[1]}, [this](std::size_t index) { return instances_[index].lost_power(); }});
}

std::unique_ptr<LockClient> RedisService::make_client() const {
  return std::make_unique<RedisLockClient>(nodes_, sentinel_, options_.lock.name, options_.lock.lease,
                                           options_.workers.acquire, options_.workers.release,
                                           options_.workers.renew_command,
                                           options_.service.request_timeout, options_.workers.wait_replicas,
                                           options_.workers.sentinel_discovery);
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
  const std::size_t primary = sentinel_->primary_index;
  if (!monitor_ || failover_cut_ || monitor_->failing_over() || !simulation.is_up(nodes_[primary])) {
    return false;
  }
  // Scheduled, not done inline, so that the nemesis's fault.begin comes first.
  simulation.schedule(simulation.now(), [this, &simulation, fault, primary] { cut_off_primary(simulation, fault, primary); });
  return true;
}

void RedisService::cut_off_primary(sim::Simulation& simulation, const FailoverFault& fault, std::size_t primary) {
  if (fault.primary == FailoverPrimary::kCrash) {
    simulation.record(instances_[primary].name(), EventKind::kCrash, {});
    simulation.crash(nodes_[primary]);
    return;
  }
  // Split brain: the old primary and the workers with it on one side; the
  // replica, Sentinel and the other workers on the other; storage reaches both.
  std::vector<sim::NodeId> with_old{nodes_[primary]};
  std::vector<sim::NodeId> away{nodes_[1 - primary], *simulation.find_node(vocabulary::proc::kSentinel)};
  for (const std::string& worker : fault.with_primary) {
    if (const auto node = simulation.find_node(worker)) with_old.push_back(*node);
  }
  for (const std::string& worker : fault.away_from_primary) {
    if (const auto node = simulation.find_node(worker)) away.push_back(*node);
  }
  failover_cut_ = simulation.network().cut(std::move(with_old), std::move(away));
  simulation.schedule(simulation.now() + fault.heal_after, [this, &simulation, primary] { heal(simulation, primary); });
}

void RedisService::heal(sim::Simulation& simulation, std::size_t old_primary) {
  simulation.network().heal(*failover_cut_);
  failover_cut_.reset();
  simulation.record(vocabulary::proc::kNemesis, EventKind::kFaultEnd,
                    {{field::kKind, fault_kind_name(FaultKind::kFailover)},
                     {field::kTarget, instances_[old_primary].name()}});
}

void RedisService::replicaof(sim::Simulation& simulation, std::size_t index, std::optional<sim::NodeId> primary) {
  if (!primary) {
    if (instances_[index].role() == RedisRole::kReplica) promote(simulation, index);
    return;
  }
  const std::size_t new_primary = primary == nodes_[0] ? 0 : 1;
  if (new_primary != index && instances_[index].role() == RedisRole::kPrimary) rejoin(simulation, index, new_primary);
}

void RedisService::promote(sim::Simulation& simulation, std::size_t promoted) {
  const std::size_t old_primary = 1 - promoted;
  // An old primary that is down loses what it promised; one still up (paused,
  // cut off, restarted) keeps its promises until Sentinel converts it.
  const bool old_primary_up = simulation.is_up(nodes_[old_primary]);
  if (!old_primary_up) {
    // Whatever restarts comes back as the new primary's replica, and resyncs.
    instances_[old_primary].demote();
    instances_[old_primary].follow(nodes_[promoted]);
  }
  instances_[promoted].promote(simulation, instances_[old_primary],
                               old_primary_up ? RedisInstance::OldPrimary::kStillUp : RedisInstance::OldPrimary::kDown);
  instances_[promoted].set_replica(nodes_[old_primary]);
}

void RedisService::rejoin(sim::Simulation& simulation, std::size_t old_primary, std::size_t new_primary) {
  instances_[old_primary].rejoin(simulation, instances_[new_primary], nodes_[new_primary]);
}

}  // namespace locksim::model
