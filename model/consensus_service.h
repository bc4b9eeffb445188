#pragma once
// The `consensus` service: one node, `consensus`, standing for an etcd or
// ZooKeeper ensemble's linearizable leader (see consensus_node.h), and a
// ConsensusLockClient per worker. Storage validates tokens with that node.

#include <memory>

#include "model/consensus_node.h"
#include "model/lock_service.h"

namespace locksim::model {

class ConsensusService final : public LockService {
 public:
  ConsensusService(sim::Simulation& simulation, const SystemOptions& options);

  [[nodiscard]] std::vector<sim::NodeId> nodes() const override { return {node_}; }
  [[nodiscard]] std::unique_ptr<LockClient> make_client() const override;
  [[nodiscard]] std::string describe_json() const override;

  // H15: the node behaves as etcd 3.4.3's lock service (see consensus_node.h).
  void reproduce_etcd_3_4_3_lock_bug() { consensus_->reproduce_etcd_3_4_3_lock_bug(); }

 private:
  SystemOptions options_;
  std::unique_ptr<ConsensusNode> consensus_;  // boot functions hold its address
  sim::NodeId node_;
};

}  // namespace locksim::model
