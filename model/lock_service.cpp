#include "model/lock_service.h"

#include "model/consensus_service.h"
#include "model/redis_service.h"
#include "model/redlock_service.h"
#include "sim/assert.h"

namespace locksim::model {

std::unique_ptr<LockService> add_lock_service(sim::Simulation& simulation, const SystemOptions& options) {
  switch (options.service.kind) {
    case ServiceKind::kRedis:
    case ServiceKind::kRedisFailover:
      return std::make_unique<RedisService>(simulation, options);
    case ServiceKind::kRedlock:
      return std::make_unique<RedlockService>(simulation, options);
    case ServiceKind::kConsensus:
      return std::make_unique<ConsensusService>(simulation, options);
  }
  LOCKSIM_ASSERT(false, "this lock service kind is not modelled yet");
  return nullptr;
}

}  // namespace locksim::model
