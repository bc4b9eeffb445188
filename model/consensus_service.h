#pragma once
// The `consensus` service, in one of two shapes (service.nodes):
// - 1: one node, `consensus`, standing for an etcd or ZooKeeper ensemble's
//   linearizable leader (consensus_node.h);
// - more: an ensemble of members consensus-0, … that elect a leader, commit
//   changes by majority and keep leases on the leader (consensus_member.h).
// A ConsensusLockClient per worker; storage validates tokens with the
// service's nodes in order.

#include <deque>
#include <memory>
#include <optional>

#include "model/consensus_member.h"
#include "model/consensus_node.h"
#include "model/lock_service.h"

namespace locksim::model {

class ConsensusService final : public LockService {
 public:
  ConsensusService(sim::Simulation& simulation, const SystemOptions& options);

  [[nodiscard]] std::vector<sim::NodeId> nodes() const override { return nodes_; }
  [[nodiscard]] std::unique_ptr<LockClient> make_client() const override;
  [[nodiscard]] std::string describe_json() const override;
  [[nodiscard]] std::optional<sim::NodeId> leader() const override;

  // H15: the service behaves as etcd 3.4.3's lock service (see consensus_node.h).
  void reproduce_etcd_3_4_3_lock_bug() { state().reproduce_etcd_3_4_3_lock_bug(); }

 private:
  [[nodiscard]] ConsensusNode& state() { return ensemble_ ? ensemble_->state : *single_; }

  SystemOptions options_;
  std::unique_ptr<ConsensusNode> single_;  // service.nodes 1; boot functions hold its address
  std::unique_ptr<Ensemble> ensemble_;     // service.nodes > 1
  std::deque<ConsensusMember> members_;    // deque: boot functions hold their addresses
  std::vector<sim::NodeId> nodes_;
  mutable std::size_t clients_made_ = 0;   // the next client starts with member clients_made_ mod nodes
};

}  // namespace locksim::model
