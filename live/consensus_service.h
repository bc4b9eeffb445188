#pragma once
// A `consensus` lock service during one live run, as the coordinator sees
// it: a real etcd cluster (etcd_cluster.h) of the scenario's `nodes`
// members, started for the run with the scenario's heartbeat and election
// timeout, with member 0 made the leader first (the simulator's run begins
// so); what happens to the lock's keys; who leads; and faults on members.
//
// - Names: one member is `consensus`, several are consensus-0 … as in the
//   simulator; `consensus-leader` strikes whoever the coordinator last saw
//   leading.
// - Workers reach each member through a link of the fault proxy (partitions
//   between workers and members, delays); the members' own links to each
//   other are direct (a partition between members has no live form: etcd
//   dials each peer at one advertised address, so a proxy in front of a
//   member cannot tell which member is dialling).
// - The coordinator watches the lock's prefix on every member (directly),
//   keeping each change once, at the moment it was first heard, and asks
//   every member's status every kStatusEvery; the lock service's history
//   lines are derived from both after the run (consensus_leases.h).
// - The coordinator pauses, crashes and restarts members through cluster()
//   (SIGSTOP/SIGCONT, SIGKILL, the same member started again from its data
//   directory), and records them as the model does (`crash`, `restart` of
//   the member).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "live/asio_coroutines.h"
#include "live/consensus_leases.h"
#include "live/etcd_cluster.h"
#include "live/fault_proxy.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"

namespace locksim::live {

class ConsensusService {
 public:
  using Now = std::function<std::int64_t()>;  // the run's time, ns

  // Starts the cluster (blocking: a second or two) and makes member 0 lead.
  // `lock_prefix`: the Mutex's prefix the workers put their keys under.
  ConsensusService(asio::io_context& io, FaultProxy& proxy, const scenario::Scenario& scenario,
                   std::string lock_prefix, Now now);
  ~ConsensusService();
  ConsensusService(const ConsensusService&) = delete;
  ConsensusService& operator=(const ConsensusService&) = delete;

  // Opens `worker`'s links to every member; their ports, member 0 first.
  [[nodiscard]] std::vector<int> open_worker_links(const std::string& worker);
  // The members' names, as links and partitions name them.
  [[nodiscard]] std::set<std::string> member_names() const;
  // A partition side with `consensus` standing for every member.
  [[nodiscard]] std::vector<std::string> expanded(const std::vector<std::string>& side) const;

  // Begins watching the lock's keys and asking who leads.
  void watch();
  // The member a fault's target names: consensus-K, or for
  // `consensus-leader` the member last seen leading (nullopt: none yet).
  [[nodiscard]] std::optional<std::size_t> member_of(const std::string& target) const;
  // `consensus` for a single member, else consensus-K.
  [[nodiscard]] std::string member_name(std::size_t member) const;
  [[nodiscard]] EtcdCluster& cluster() { return cluster_; }
  // Stops watching. At the run's end.
  void finish();

  // The lock service's lines (consensus_leases.h), from `worker_lines`.
  [[nodiscard]] std::vector<nlohmann::json> lease_lines(const std::vector<nlohmann::json>& worker_lines) const;
  [[nodiscard]] nlohmann::ordered_json service_description() const;

  // What the watches and status questions learnt, shared with their coroutines.
  struct Heard;

 private:
  asio::io_context& io_;
  FaultProxy& proxy_;
  const scenario::Scenario& scenario_;
  std::string lock_prefix_;
  Now now_;
  EtcdCluster cluster_;
  std::shared_ptr<Heard> heard_;
};

// Why a consensus scenario cannot run live, naming its JSON path ("" when it can).
[[nodiscard]] std::string consensus_unsupported(const scenario::Scenario& scenario);

// `consensus`, consensus-<n> or consensus-leader: a fault target on the consensus service.
[[nodiscard]] bool is_consensus_target(std::string_view node);

// Why a fault on a consensus member (or a partition between members) has no
// live form ("" when it has one).
[[nodiscard]] std::string consensus_fault_without_live_form(const scenario::PlannedFault& fault);

}  // namespace locksim::live
