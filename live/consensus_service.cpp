#include "live/consensus_service.h"

#include <algorithm>

#include "live/etcd_gateway.h"
#include "model/consensus_member.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"
#include "vocabulary/setup_name.h"

namespace locksim::live {

namespace field = vocabulary::field;

namespace {

using Json = nlohmann::ordered_json;
using scenario::FaultKind;
using scenario::PlannedFault;

// How often every member is asked who leads: well inside an election
// (1-2 s at etcd's defaults), so a take-over is placed within this much.
constexpr std::chrono::milliseconds kStatusEvery{50};
// How long one status question or watch (re)start may take: a paused member answers nothing.
constexpr std::chrono::milliseconds kAskFor{200};
// How long a watch waits for its next event before looking whether the run is over.
constexpr std::chrono::milliseconds kWatchWait{100};

std::chrono::milliseconds as_ms(sim::Duration duration) {
  return std::chrono::milliseconds{duration.count_ns() / 1'000'000};
}

EtcdClusterOptions cluster_options(const scenario::Scenario& scenario) {
  EtcdClusterOptions options;
  options.member_count = static_cast<std::size_t>(scenario.system.service.nodes);
  options.heartbeat_interval = as_ms(scenario.system.service.heartbeat);
  options.election_timeout = as_ms(scenario.system.service.election_timeout);
  return options;
}

int port_of(const std::string& endpoint) { return std::stoi(endpoint.substr(endpoint.rfind(':') + 1)); }

// `consensus` or consensus-<n>: a node name that starts so is a member (or all of them).
bool is_member_name(std::string_view name) { return is_consensus_target(name) && name != model::kConsensusLeader; }

}  // namespace

struct ConsensusService::Heard {
  bool over = false;
  std::map<std::pair<std::int64_t, std::string>, ConsensusKeyChange> changes;  // (revision, key) → first heard
  std::int64_t latest_revision = 0;
  std::vector<ConsensusLeadership> leaderships;  // each (term, leader) once, when first seen
  std::set<std::uint64_t> terms_seen;
  std::optional<std::size_t> leader;  // the latest seen
  std::uint64_t leader_term = 0;
};

namespace {

// Watches the prefix on one member, from the first revision, starting
// again (after the latest change heard) whenever its stream ends.
asio::awaitable<void> watch_member(std::string endpoint, std::string prefix, std::shared_ptr<ConsensusService::Heard> heard,
                                   std::function<std::int64_t()> now) {
  auto executor = co_await asio::this_coro::executor;
  std::int64_t next_revision = 1;
  while (!heard->over) {
    EtcdWatch watch{executor, endpoint};
    if (co_await watch.start(prefix, next_revision, kAskFor, WatchScope::kPrefix)) {
      while (!heard->over) {
        const std::optional<EtcdEvent> event = co_await watch.next_event(kWatchWait);
        if (!event) {
          if (watch.failure() == vocabulary::reason::kTimeout) continue;
          break;
        }
        next_revision = std::max(next_revision, event->key_value.mod_revision + 1);
        const auto key = std::pair{event->key_value.mod_revision, event->key_value.key};
        if (heard->changes.contains(key)) continue;
        heard->changes.emplace(key, ConsensusKeyChange{now(), event->raft_term, event->kind == EtcdEvent::Kind::kDelete,
                                                       event->key_value.key, event->key_value.value,
                                                       event->key_value.create_revision, event->key_value.mod_revision});
      }
    }
    asio::steady_timer again{executor};
    again.expires_after(kStatusEvery);
    co_await again.async_wait(asio::use_awaitable);
  }
}

// Asks one member every kStatusEvery whether it leads.
asio::awaitable<void> ask_who_leads(std::string endpoint, std::size_t member, std::shared_ptr<ConsensusService::Heard> heard,
                                    std::function<std::int64_t()> now) {
  auto executor = co_await asio::this_coro::executor;
  EtcdGateway gateway{executor, endpoint};
  while (!heard->over) {
    const std::optional<EtcdStatus> status = co_await gateway.status(kAskFor);
    if (status && status->leader != 0 && status->leader == status->member_id) {
      if (heard->terms_seen.insert(status->raft_term).second) {
        heard->leaderships.push_back({now(), status->raft_term, member});
      }
      if (status->raft_term >= heard->leader_term) {
        heard->leader = member;
        heard->leader_term = status->raft_term;
      }
    }
    asio::steady_timer again{executor};
    again.expires_after(kStatusEvery);
    co_await again.async_wait(asio::use_awaitable);
  }
}

}  // namespace

ConsensusService::ConsensusService(asio::io_context& io, FaultProxy& proxy, const scenario::Scenario& scenario,
                                   std::string lock_prefix, Now now)
    : io_{io},
      proxy_{proxy},
      scenario_{scenario},
      lock_prefix_{std::move(lock_prefix)},
      now_{std::move(now)},
      cluster_{cluster_options(scenario)},
      heard_{std::make_shared<Heard>()} {
  if (cluster_.member_count() > 1) cluster_.hand_leadership_to(0);
  heard_->leader = 0;
}

ConsensusService::~ConsensusService() { finish(); }

std::string ConsensusService::member_name(std::size_t member) const {
  if (cluster_.member_count() == 1) return vocabulary::service_kind::kConsensus;
  return model::consensus_member_name(static_cast<int>(member));
}

std::vector<int> ConsensusService::open_worker_links(const std::string& worker) {
  std::vector<int> ports;
  for (std::size_t member = 0; member < cluster_.member_count(); ++member) {
    ports.push_back(proxy_.open_link(worker, member_name(member), "127.0.0.1", port_of(cluster_.client_endpoint(member))));
  }
  return ports;
}

std::set<std::string> ConsensusService::member_names() const {
  std::set<std::string> names;
  for (std::size_t member = 0; member < cluster_.member_count(); ++member) names.insert(member_name(member));
  return names;
}

std::vector<std::string> ConsensusService::expanded(const std::vector<std::string>& side) const {
  std::vector<std::string> nodes;
  for (const std::string& node : side) {
    if (node == vocabulary::service_kind::kConsensus && cluster_.member_count() > 1) {
      for (const std::string& member : member_names()) nodes.push_back(member);
    } else {
      nodes.push_back(node);
    }
  }
  return nodes;
}

void ConsensusService::watch() {
  for (std::size_t member = 0; member < cluster_.member_count(); ++member) {
    asio::co_spawn(io_, watch_member(cluster_.client_endpoint(member), lock_prefix_, heard_, now_), asio::detached);
    if (cluster_.member_count() > 1) {
      asio::co_spawn(io_, ask_who_leads(cluster_.client_endpoint(member), member, heard_, now_), asio::detached);
    }
  }
}

std::optional<std::size_t> ConsensusService::member_of(const std::string& target) const {
  if (target == model::kConsensusLeader) return heard_->leader;
  for (std::size_t member = 0; member < cluster_.member_count(); ++member) {
    if (member_name(member) == target) return member;
  }
  return std::nullopt;
}

void ConsensusService::finish() { heard_->over = true; }

std::vector<nlohmann::json> ConsensusService::lease_lines(const std::vector<nlohmann::json>& worker_lines) const {
  std::vector<ConsensusKeyChange> changes;
  for (const auto& [key, change] : heard_->changes) changes.push_back(change);
  const std::int64_t ttl_ns = std::max(scenario_.system.lock.lease->count_ns(),
                                       model::etcd_min_lease_ttl(scenario_.system.service.heartbeat,
                                                                 scenario_.system.service.election_timeout)
                                           .count_ns());
  const ConsensusLeaseInputs inputs{scenario_.system.lock.name, cluster_.member_count(), ttl_ns,
                                    scenario_.system.service.election_timeout.count_ns()};
  return consensus_leases(changes, heard_->leaderships, worker_lines, inputs);
}

Json ConsensusService::service_description() const {
  return Json{{field::kKind, vocabulary::service_kind::kConsensus},
              {field::kInstances, static_cast<int>(cluster_.member_count())},
              {field::kQuorum, 1}};
}

std::string consensus_unsupported(const scenario::Scenario& scenario) {
  const model::ServiceOptions& service = scenario.system.service;
  if (service.etcd_3_4_3_lock_bug) {
    return "/service/etcd_3_4_3_lock_bug: live mode's etcd client checks its own key after waiting, as etcd's "
           "Mutex does since v3.5.0; 3.4.3's bug is the simulator's alone";
  }
  if (service.lock_delay > sim::Duration::zero()) {
    return "/service/lock_delay: etcd has no lock delay (it is Consul's), so live mode cannot run it";
  }
  if (service.nodes != 1 && service.nodes != 3) return "/service/nodes: live mode starts an etcd cluster of 1 or 3 members";
  if (!scenario.system.lock.lease) return "/lock/lease: an etcd session always has a TTL";
  // A worker program of your own (workers.command) runs too: it is given the
  // members' endpoints (user_worker_config.h), and the service's lines come
  // from its own acquire.ok lines (client_side_leases.h), not from the watch.
  return "";
}

bool is_consensus_target(std::string_view node) { return node.starts_with(vocabulary::service_kind::kConsensus); }

std::string consensus_fault_without_live_form(const PlannedFault& fault) {
  if (fault.kind() == FaultKind::kPartition) {
    const auto& partition = std::get<model::faults::Partition>(fault.params);
    const auto has_member = [](const std::vector<std::string>& side) {
      return std::ranges::any_of(side, [](const std::string& node) { return is_member_name(node); });
    };
    if (has_member(partition.side_a) && has_member(partition.side_b)) {
      return "a partition between consensus members has no live form: etcd dials each peer at one advertised "
             "address, so a proxy in front of a member cannot tell which member dials";
    }
    return "";
  }
  if (!is_consensus_target(fault.target)) return "";
  if (fault.kind() != FaultKind::kPause && fault.kind() != FaultKind::kCrash) {
    return "only a pause or a crash of a consensus member has a live form";
  }
  if (!std::holds_alternative<scenario::AtTime>(fault.trigger)) {
    return "a fault on a consensus member has a live form only at a time (the coordinator sees no member's events "
           "as they happen)";
  }
  return "";
}

}  // namespace locksim::live
