#include "model/redlock_service.h"

#include <fmt/core.h>

#include "model/redlock_client.h"
#include "sim/assert.h"

namespace locksim::model {

RedlockService::RedlockService(sim::Simulation& simulation, const SystemOptions& options) : options_{options} {
  const int count = instance_count(options.service);
  LOCKSIM_ASSERT(count >= 1, "a redlock service needs at least one instance");
  for (int index = 0; index < count; ++index) {
    RedisInstanceOptions instance_options;
    instance_options.persistence = options.service.persistence;
    instance_options.memory = options.service.memory;
    instance_options.delayed_restart = options.service.delayed_restart;
    instance_options.role = RedisRole::kPrimary;  // every Redlock instance is an independent master
    instances_.emplace_back(fmt::format("redis-{}", index), instance_options);
    nodes_.push_back(simulation.add_node(instances_.back().name(), instances_.back().boot()));
  }
}

int RedlockService::instance_count(const ServiceOptions& service) {
  return service.instances.value_or(kDefaultInstances);
}

std::unique_ptr<LockClient> RedlockService::make_client() const {
  RedlockClientOptions client_options;
  client_options.lease = options_.lock.lease;
  client_options.release = options_.workers.release;
  client_options.renew_command = options_.workers.renew_command;
  client_options.drift_factor = options_.service.drift_factor;
  client_options.elapsed_check =
      options_.service.recheck_elapsed ? ElapsedCheck::kSubtractElapsed : ElapsedCheck::kIgnoreElapsed;
  client_options.request_timeout = options_.service.request_timeout;
  return std::make_unique<RedlockClient>(nodes_, options_.lock.name, client_options);
}

std::string RedlockService::describe_json() const {
  const int count = static_cast<int>(nodes_.size());
  return fmt::format(R"({{"kind":"{}","instances":{},"quorum":{}}})", service_kind_name(ServiceKind::kRedlock), count,
                     quorum());
}

}  // namespace locksim::model
