#include "model/consensus_service.h"

#include <fmt/format.h>

#include "model/consensus_lock_client.h"

namespace locksim::model {

ConsensusService::ConsensusService(sim::Simulation& simulation, const SystemOptions& options) : options_{options} {
  const ServiceOptions& service = options.service;
  if (service.nodes <= 1) {
    single_ = std::make_unique<ConsensusNode>("consensus", service.lock_delay);
    nodes_.push_back(simulation.add_node(single_->name(), single_->boot()));
  } else {
    ensemble_ = std::make_unique<Ensemble>(simulation, service.lock_delay, service.heartbeat, service.election_timeout);
    for (int index = 0; index < service.nodes; ++index) {
      members_.emplace_back(static_cast<std::size_t>(index), *ensemble_);
      nodes_.push_back(simulation.add_node(consensus_member_name(index), members_.back().boot()));
    }
    ensemble_->members = nodes_;
  }
  if (service.etcd_3_4_3_lock_bug) reproduce_etcd_3_4_3_lock_bug();
}

std::unique_ptr<LockClient> ConsensusService::make_client() const {
  return std::make_unique<ConsensusLockClient>(nodes_, clients_made_++, options_.lock.name, options_.lock.lease,
                                               options_.service.request_timeout);
}

std::optional<sim::NodeId> ConsensusService::leader() const {
  if (!ensemble_) return std::nullopt;
  const std::optional<std::size_t> leader = ensemble_->acting_leader();
  if (!leader) return std::nullopt;
  return nodes_[*leader];
}

std::string ConsensusService::describe_json() const {
  return fmt::format(R"({{"kind":"{}","instances":{},"quorum":1}})", service_kind_name(ServiceKind::kConsensus),
                     nodes_.size());
}

}  // namespace locksim::model
