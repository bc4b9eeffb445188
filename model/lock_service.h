#pragma once
// LockService: what the rest of the system needs from one kind of lock
// service model — its nodes, a client for each worker, and the faults only
// it knows how to carry out.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/lock_client.h"
#include "model/options.h"
#include "sim/simulation.h"
#include "vocabulary/field_name.h"

namespace locksim::model {

namespace field = vocabulary::field;

class RedisInstance;

class LockService {
 public:
  virtual ~LockService() = default;

  // The service's nodes, in the order they were added (redis-0, redis-1, … or consensus).
  [[nodiscard]] virtual std::vector<sim::NodeId> nodes() const = 0;
  // A client for one worker (each worker owns its client's state).
  [[nodiscard]] virtual std::unique_ptr<LockClient> make_client() const = 0;
  // Nodes storage may ask whether a token is current (`validate: service`).
  [[nodiscard]] virtual std::vector<sim::NodeId> validators() const { return nodes(); }
  // How many distinct instances must promise an owner a lease for it to hold
  // the lock: 1, or Redlock's majority.
  [[nodiscard]] virtual int quorum() const { return 1; }
  // For run.begin's `service` field: {field::kKind, "instances", "quorum"}.
  [[nodiscard]] virtual std::string describe_json() const = 0;
  // The Redis instance on `node`, for the faults that act on its data
  // (power-loss, memory-pressure); nullptr if this service has none there.
  [[nodiscard]] virtual RedisInstance* redis_instance_on(sim::NodeId node) {
    (void)node;
    return nullptr;
  }
  // The node that leads the service now, if it has such a thing (a consensus
  // ensemble) and one leads: the `consensus-leader` fault target.
  [[nodiscard]] virtual std::optional<sim::NodeId> leader() const { return std::nullopt; }
  // The `failover` fault. Returns false if this kind of service has none (or
  // is failing over already); the service carries it out from now on.
  virtual bool failover(sim::Simulation& simulation, const FailoverFault& fault) {
    (void)simulation;
    (void)fault;
    return false;
  }
};

// Adds the service `options.service` describes to `simulation`.
[[nodiscard]] std::unique_ptr<LockService> add_lock_service(sim::Simulation& simulation, const SystemOptions& options);

}  // namespace locksim::model
