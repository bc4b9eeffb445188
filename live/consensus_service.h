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
// - A pause is SIGSTOP/SIGCONT of the member; a crash SIGKILL, and a restart
//   the same member started again from its data directory (on a thread of
//   its own: etcd takes a while to rejoin), recorded as the model records
//   them (`crash`, `restart` of the member).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
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
  using Record = std::function<void(nlohmann::ordered_json line)>;  // a coordinator line (t, proc, ev, …)
  using Now = std::function<std::int64_t()>;                        // the run's time, ns
  // Something went wrong that ends the run (a member that does not restart).
  using Fail = std::function<void(std::string message)>;

  // Starts the cluster (blocking: a second or two) and makes member 0 lead.
  // `lock_prefix`: the Mutex's prefix the workers put their keys under.
  ConsensusService(asio::io_context& io, FaultProxy& proxy, const scenario::Scenario& scenario,
                   std::string lock_prefix, Record record, Now now, Fail fail);
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
  // Carries out a pause or crash of a member; false when it did nothing (no
  // leader known, or the member is down or being restarted).
  bool act(const scenario::PlannedFault& fault);
  // Stops watching and waits for any restart under way. At the run's end.
  void finish();

  // The lock service's lines (consensus_leases.h), from `worker_lines`.
  [[nodiscard]] std::vector<nlohmann::json> lease_lines(const std::vector<nlohmann::json>& worker_lines) const;
  [[nodiscard]] nlohmann::ordered_json service_description() const;

  // What the watches and status questions learnt, shared with their coroutines.
  struct Heard;

 private:
  [[nodiscard]] std::string member_name(std::size_t member) const;
  [[nodiscard]] std::optional<std::size_t> member_of(const std::string& target) const;
  void pause(std::size_t member, const scenario::PlannedFault& fault);
  void crash(std::size_t member, const scenario::PlannedFault& fault);
  void restart(std::size_t member);
  void record_line(const std::string& proc, std::string_view event);

  asio::io_context& io_;
  FaultProxy& proxy_;
  const scenario::Scenario& scenario_;
  std::string lock_prefix_;
  Record record_;
  Now now_;
  Fail fail_;
  EtcdCluster cluster_;
  std::shared_ptr<Heard> heard_;
  std::vector<std::thread> restarting_;  // by member: a restart under way
};

// Why a consensus scenario cannot run live, naming its JSON path ("" when it can).
[[nodiscard]] std::string consensus_unsupported(const scenario::Scenario& scenario);

// `consensus`, consensus-<n> or consensus-leader: a fault target on the consensus service.
[[nodiscard]] bool is_consensus_target(std::string_view node);

// Why a fault on a consensus member (or a partition between members) has no
// live form ("" when it has one).
[[nodiscard]] std::string consensus_fault_without_live_form(const scenario::PlannedFault& fault);

}  // namespace locksim::live
