#include "model/consensus_service.h"

#include "model/consensus_lock_client.h"

namespace locksim::model {

ConsensusService::ConsensusService(sim::Simulation& simulation, const SystemOptions& options)
    : options_{options},
      consensus_{std::make_unique<ConsensusNode>("consensus", options.service.lock_delay)},
      node_{simulation.add_node(consensus_->name(), consensus_->boot())} {
  if (options.service.etcd_3_4_3_lock_bug) reproduce_etcd_3_4_3_lock_bug();
}

std::unique_ptr<LockClient> ConsensusService::make_client() const {
  return std::make_unique<ConsensusLockClient>(node_, options_.lock.name, options_.lock.lease,
                                               options_.service.request_timeout);
}

std::string ConsensusService::describe_json() const {
  return fmt::format(R"({{"kind":"{}","instances":1,"quorum":1}})", service_kind_name(ServiceKind::kConsensus));
}

}  // namespace locksim::model
