#include "live/failover_service.h"

#include <cmath>

#include <fmt/format.h>

#include "live/live_run.h"
#include "live/redis_client.h"
#include "live/time_scale.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"
#include "vocabulary/worker_name.h"

namespace locksim::live {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::event_kind_name;
using vocabulary::fault_kind_name;
namespace field = vocabulary::field;

namespace {

using Json = nlohmann::ordered_json;
using std::chrono::nanoseconds;

// min-replicas-max-lag is whole seconds in Redis, and the replica
// acknowledges once a second whatever the time scale: the scaled lag is
// rounded to the nearest second, at least 1 (docs/live.md).
int max_lag_seconds(const scenario::Scenario& scenario, double time_scale) {
  const double seconds = static_cast<double>(scaled(scenario.system.service.min_replicas_max_lag, time_scale).count()) / 1e9;
  return std::max(1, static_cast<int>(std::lround(seconds)));
}

// repl-diskless-sync-delay is whole seconds too: the scaled delay rounded to
// the nearest second, at least 1 unless the scenario's is 0 (docs/live.md).
int diskless_sync_delay_seconds(const scenario::Scenario& scenario, double time_scale) {
  const sim::Duration delay = scenario.system.service.repl_diskless_sync_delay;
  if (delay < sim::Duration::seconds(1)) return 0;  // the model drops a fraction of a second too
  const double seconds = static_cast<double>(scaled(delay, time_scale).count()) / 1e9;
  return std::max(1, static_cast<int>(std::lround(seconds)));
}

FailoverClusterSettings cluster_settings(const scenario::Scenario& scenario, double time_scale) {
  FailoverClusterSettings settings;
  settings.down_after = scaled_down_after(scenario, time_scale);
  settings.time_scale = time_scale;
  settings.min_replicas_to_write = scenario.system.service.min_replicas_to_write;
  settings.min_replicas_max_lag_seconds = max_lag_seconds(scenario, time_scale);
  settings.repl_diskless_sync_delay_seconds = diskless_sync_delay_seconds(scenario, time_scale);
  settings.replication_lag = scenario.system.service.replication_lag;
  settings.persistence = server_persistence(scenario);
  return settings;
}

// Sentinel's announcements the coordinator follows.
constexpr const char* kPromotionChannel = "+failover-state-send-slaveof-noone";
constexpr const char* kRejoinChannel = "+convert-to-slave";
constexpr const char* kSwitchChannel = "+switch-master";

}  // namespace

std::chrono::milliseconds scaled_down_after(const scenario::Scenario& scenario, double time_scale) {
  return std::max(std::chrono::milliseconds{1},
                  std::chrono::duration_cast<std::chrono::milliseconds>(scaled(scenario.system.service.down_after, time_scale)));
}

std::string failover_fault_without_live_form(const scenario::PlannedFault& fault) {
  if (const auto* on_event = std::get_if<scenario::OnEvent>(&fault.trigger);
      on_event && on_event->when != scenario::TriggerEvent::kAfterGrant) {
    return "its trigger has no live form for a failover (only a time and after-grant)";
  }
  return "";
}

FailoverService::FailoverService(asio::io_context& io, FaultProxy& proxy, const scenario::Scenario& scenario,
                                 double time_scale, std::string lock_key, std::string log_channel, OnRecord on_record,
                                 Record record, Now now)
    : io_{io},
      proxy_{proxy},
      scenario_{scenario},
      time_scale_{time_scale},
      lock_key_{std::move(lock_key)},
      log_key_{log_channel},
      on_record_{std::move(on_record)},
      record_{std::move(record)},
      now_{std::move(now)},
      cluster_{io, proxy, cluster_settings(scenario, time_scale)} {
  for (std::size_t instance = 0; instance < FailoverCluster::kInstances; ++instance) {
    subscriptions_.push_back(std::make_unique<LogSubscription>(
        io_, "127.0.0.1", cluster_.server(instance).port(), log_channel,
        [this, instance](const std::string& text) { heard(instance, text); }));
  }
  subscriptions_.push_back(std::make_unique<LogSubscription>(io_, "127.0.0.1", cluster_.sentinel_port(), kPromotionChannel,
                                                             [this](const std::string&) { on_promotion(); }));
  subscriptions_.push_back(std::make_unique<LogSubscription>(io_, "127.0.0.1", cluster_.sentinel_port(), kRejoinChannel,
                                                             [this](const std::string&) {
                                                               on_rejoin();
                                                               resubscribe_to_servers();
                                                             }));
  subscriptions_.push_back(std::make_unique<LogSubscription>(io_, "127.0.0.1", cluster_.sentinel_port(), kSwitchChannel,
                                                             [this](const std::string&) { resubscribe_to_servers(); }));
}

// Sentinel ends every client's connection to a server it reconfigures
// (CLIENT KILL TYPE normal / pubsub, with the REPLICAOF), this subscription's
// too: subscribe again. What a server decided meanwhile is still in its log
// list, read at the end (collect_unheard).
void FailoverService::resubscribe_to_servers() {
  for (std::size_t instance = 0; instance < FailoverCluster::kInstances; ++instance) {
    // A frozen (paused) server would block the run for good. Its subscription
    // is still whole: Sentinel reconfigures no server it cannot reach.
    if (!cluster_.server(instance).running() || cluster_.server(instance).frozen()) continue;
    try {
      subscriptions_[instance]->resubscribe();
    } catch (const LiveError&) {
      // a server that just went away; its log list is read at the end if it is back
    }
  }
}

void FailoverService::collect_unheard() {
  std::vector<std::pair<std::string, std::size_t>> unheard;
  // The promoted replica first: a record in both lists is in the old
  // primary's only because it became the new one's replica and copied it.
  for (const std::size_t instance : {std::size_t{1}, std::size_t{0}}) {
    if (!cluster_.server(instance).running()) continue;
    cluster_.server(instance).thaw();  // the run is over: a pause past its end ends here
    RedisClient server{"127.0.0.1", cluster_.server(instance).port()};
    for (const RespValue& item : server.command({"LRANGE", log_key_, "0", "-1"}).items) {
      if (decided_by_.emplace(item.text, decider(instance)).second) records_.emplace_back(item.text, decider(instance));
    }
  }
}

FailoverService::~FailoverService() = default;

SentinelRoute FailoverService::open_worker_links(const std::string& worker, int& lock_port) {
  SentinelRoute route;
  route.master_name = FailoverCluster::kMasterName;
  for (std::size_t instance = 0; instance < FailoverCluster::kInstances; ++instance) {
    const int link = proxy_.open_link(worker, instance_name(instance), "127.0.0.1", cluster_.server(instance).port());
    route.ports.emplace_back(cluster_.announced_port(instance), link);
    if (instance == 0) lock_port = link;
  }
  route.sentinel_port = proxy_.open_link(worker, vocabulary::proc::kSentinel, "127.0.0.1", cluster_.sentinel_port());
  return route;
}

std::set<std::string> FailoverService::lock_servers() const {
  std::set<std::string> servers{vocabulary::proc::kSentinel};
  for (std::size_t instance = 0; instance < FailoverCluster::kInstances; ++instance) servers.insert(instance_name(instance));
  return servers;
}

// Scripts replicate as their effects, their PUBLISH too, so a replica
// publishes a copy of each record its primary made, and with the stream
// flowing from the start the copy is sometimes heard first (one run in about
// twenty on a loaded machine named the replica the granter).
std::size_t FailoverService::decider(std::size_t instance) const {
  const bool replica = (!promoted_ && instance == 1) || (rejoined_ && instance == 0);
  return replica ? 1 - instance : instance;
}

void FailoverService::heard(std::size_t instance, const std::string& text) {
  const std::size_t decided_by = decider(instance);
  if (!decided_by_.emplace(text, decided_by).second) return;  // heard already, from the other instance
  records_.emplace_back(text, decided_by);
  on_record_(instance_name(decided_by), text);
}

void FailoverService::restarted(std::size_t instance, LockRestart restart) {
  try {
    subscriptions_[instance]->resubscribe();
  } catch (const LiveError&) {
    // gone again already; its log list is read at the end if it is back
  }
  RedisClient server{"127.0.0.1", cluster_.server(instance).port()};
  const RespValue kept = server.command({"GET", lock_key_});
  if (kept.type == RespValue::Type::kString) restart.kept_value = kept.text;
  restarts_[instance].push_back(std::move(restart));
}

std::vector<LockInstanceRecords> FailoverService::lock_instances() const {
  std::vector<LockInstanceRecords> instances;
  for (std::size_t instance = 0; instance < FailoverCluster::kInstances; ++instance) {
    instances.push_back({instance_name(instance), {}, restarts_[instance]});
  }
  for (const auto& [text, instance] : records_) instances[instance].log.push_back(nlohmann::json::parse(text));
  return instances;
}

bool FailoverService::act(const scenario::PlannedFault& fault) {
  if (failing_over_) return false;  // Sentinel is failing over already
  failing_over_ = true;
  const std::string old_primary = instance_name(0);
  const Json target = Json::array({instance_name(0), instance_name(1)});
  const auto& failover = std::get<model::faults::Failover>(fault.params);
  if (failover.primary == model::FailoverPrimary::kCrash) {
    record_(Json{{field::kTime, now_()},
                 {field::kProc, vocabulary::proc::kNemesis},
                 {field::kEvent, event_kind_name(EventKind::kFaultBegin)},
                 {field::kKind, fault_kind_name(FaultKind::kFailover)},
                 {field::kTarget, target},
                 {field::kPrimary, vocabulary::kFailoverPrimaryCrash}});
    cluster_.server(0).crash();
    record_(
        Json{{field::kTime, now_()}, {field::kProc, old_primary}, {field::kEvent, event_kind_name(EventKind::kCrash)}});
    return true;
  }
  // Split brain: the old primary and its workers on one side; the replica,
  // Sentinel and every other worker on the other; storage reaches both.
  std::vector<std::string> with_old{old_primary};
  std::vector<std::string> away{instance_name(1), vocabulary::proc::kSentinel};
  for (int index = 1; index <= scenario_.system.workers.count; ++index) {
    const std::string worker = vocabulary::worker_name(index);
    const bool with = std::ranges::find(failover.with_primary, worker) != failover.with_primary.end();
    (with ? with_old : away).push_back(worker);
  }
  cut_ = proxy_.cut(with_old, away);
  Json between = Json::array({Json(with_old), Json::array()});
  for (const std::string& node : away) {
    if (node != vocabulary::proc::kSentinel) between[1].push_back(node);
  }
  const nanoseconds length = scaled(fault.length, time_scale_);
  record_(Json{{field::kTime, now_()},
               {field::kProc, vocabulary::proc::kNemesis},
               {field::kEvent, event_kind_name(EventKind::kFaultBegin)},
               {field::kKind, fault_kind_name(FaultKind::kFailover)},
               {field::kTarget, target},
               {field::kPrimary, vocabulary::kFailoverPrimaryPartition},
               {field::kBetween, between},
               {field::kForNs, length.count()}});
  auto timer = std::make_shared<asio::steady_timer>(io_);
  timer->expires_after(length);
  timer->async_wait([this, timer, old_primary](const boost::system::error_code& error) {
    if (error || !cut_) return;
    proxy_.heal(*cut_);
    cut_.reset();
    record_(Json{{field::kTime, now_()},
                 {field::kProc, vocabulary::proc::kNemesis},
                 {field::kEvent, event_kind_name(EventKind::kFaultEnd)},
                 {field::kKind, fault_kind_name(FaultKind::kFailover)},
                 {field::kTarget, old_primary}});
    if (!promoted_) failing_over_ = false;  // healed before Sentinel acted: no failover at all
  });
  return true;
}

// Sentinel sent REPLICAOF NO ONE: from now the replica may serve as primary.
// What it holds cannot change before it does (its primary's stream is
// gone: dead or cut off), so this is what it took over.
void FailoverService::on_promotion() {
  promoted_ = true;
  LockRoleChange change;
  change.t = now_();
  change.old_primary_alive = cluster_.server(0).running();
  RedisClient replica{"127.0.0.1", cluster_.server(1).port()};
  const RespValue kept = replica.command({"GET", lock_key_});
  if (kept.type == RespValue::Type::kString) {
    change.kept_value = kept.text;
    const std::int64_t left_ms = replica.command({"PTTL", lock_key_}).integer;
    change.kept_lease_ns = left_ms > 0 ? left_ms * 1'000'000 : 0;
  }
  role_changes_.push_back(change);
}

// Sentinel found the old primary again (a split brain's end) and made it a replica.
void FailoverService::on_rejoin() {
  LockRoleChange change;
  change.kind = LockRoleChange::Kind::kRejoin;
  change.t = now_();
  change.old_primary_alive = true;
  role_changes_.push_back(change);
  failing_over_ = false;
  rejoined_ = true;
}

}  // namespace locksim::live
