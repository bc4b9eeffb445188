#include "model/sentinel_monitor.h"

#include <algorithm>
#include <vector>

#include "model/protocol.h"
#include "vocabulary/proc_name.h"

namespace locksim::model {

using sim::Duration;
using sim::LocalTime;

namespace {

// serverCron runs sentinelTimer at server.hz, which Sentinel redraws after
// every tick to desynchronise Sentinels: CONFIG_DEFAULT_HZ + rand() % CONFIG_DEFAULT_HZ.
Duration next_tick(sim::Rng& rng) {
  const auto hz = static_cast<std::int64_t>(10 + rng.below(10));
  return Duration::milliseconds(1000 / hz);
}

// A replica is a candidate only if it answered a ping within 5 ping periods
// (sentinelSelectSlave: its INFO, asked every second while the primary is
// down, must be as fresh).
constexpr Duration kReplicaAnsweredWithin = SentinelMonitor::kPingPeriod * 5;

}  // namespace

SentinelMonitor::SentinelMonitor(Duration down_after, std::shared_ptr<RedisSentinel> clients_view, sim::Rng rng)
    : down_after_{down_after}, clients_view_{std::move(clients_view)}, rng_{rng} {}

void SentinelMonitor::add_to(sim::Simulation& simulation, Service service) {
  simulation_ = &simulation;
  service_ = std::move(service);
  for (std::size_t instance = 0; instance < links_.size(); ++instance) links_[instance].node = service_.instances[instance];
  simulation.add_node(vocabulary::proc::kSentinel,
                      [this](sim::Context context) { context.spawn("monitor", run(context)); });
}

sim::Task<> SentinelMonitor::run(sim::Context context) {
  // The cluster has been up a while: every instance has just answered. (A
  // restarted Sentinel starts afresh too: what was in flight died with it.)
  for (Link& link : links_) {
    link.last_pong = context.now();
    link.last_ping = context.now();
    link.oldest_unanswered_ping.reset();
    link.info_in_flight = false;
  }
  while (true) {
    co_await context.sleep(next_tick(rng_));
    tick(context);
  }
}

void SentinelMonitor::tick(sim::Context context) {
  for (std::size_t instance = 0; instance < links_.size(); ++instance) keep_link(context, instance);
  step_failover(context);
  follow_clients_back(context);
}

// sentinelReconnectInstance and sentinelSendPeriodicCommands for one instance.
void SentinelMonitor::keep_link(sim::Context context, std::size_t instance) {
  Link& link = links_[instance];
  const LocalTime now = context.now();
  sim::Simulation& simulation = *simulation_;
  if (link.connected && !simulation.is_up(link.node) && !service_.lost_power(instance)) {
    // The dead process's kernel closed the connection; the reconnect's PING
    // (sent at once, before the connection is refused) is the pending one.
    link.connected = false;
    if (!link.oldest_unanswered_ping) link.oldest_unanswered_ping = now;
  }
  if (!link.connected) {
    if (now - link.last_reconnect < kPingPeriod || !simulation.is_up(link.node)) return;
    link.last_reconnect = now;
    link.connected = true;
    link.last_ping = now;
    if (!link.oldest_unanswered_ping) link.oldest_unanswered_ping = now;
    context.spawn("ping", ping(context, instance));
    return;
  }
  // Every ping period, or every down-after if that is shorter.
  const Duration ping_period = std::min(down_after_, kPingPeriod);
  if (now - link.last_pong > ping_period && now - link.last_ping > ping_period / 2) {
    link.last_ping = now;
    if (!link.oldest_unanswered_ping) link.oldest_unanswered_ping = now;
    context.spawn("ping", ping(context, instance));
  }
  if (link.next_info && now >= *link.next_info && !link.info_in_flight) {
    link.next_info.reset();
    link.info_in_flight = true;
    context.spawn("info", info(context, instance));
  }
}

sim::Task<> SentinelMonitor::ping(sim::Context context, std::size_t instance) {
  // Sentinel closes a link whose ping has waited half of down-after
  // (sentinelCheckSubjectivelyDown), not within a link's first seconds: a
  // call that times out does the same.
  const auto reply = co_await context.call(links_[instance].node, SentinelPing{}, link_timeout());
  if (!reply) co_return;
  Link& link = links_[instance];
  link.last_pong = context.now();
  link.oldest_unanswered_ping.reset();
  if (returning_old_primary_ == instance && !link.reports_primary_since && !link.next_info && !link.info_in_flight) {
    link.next_info = context.now();  // reached again: INFO at once
  }
}

sim::Task<> SentinelMonitor::info(sim::Context context, std::size_t instance) {
  const auto reply = co_await context.call(links_[instance].node, InfoCommand{}, link_timeout());
  Link& link = links_[instance];
  link.info_in_flight = false;
  if (!reply) {
    link.next_info = context.now();  // asked again on the next tick
    co_return;
  }
  const bool reports_primary = reply->body.get<InfoReply>().primary;
  const LocalTime now = context.now();
  if (instance == replica() && state_ == State::kWaitPromotion) {
    // +promoted-slave; with no other replica to reconfigure, the failover
    // ends and the next tick switches. Not yet: INFO every second meanwhile.
    if (reports_primary) {
      state_ = State::kSwitch;
    } else {
      link.next_info = now + kPingPeriod;
    }
    co_return;
  }
  if (returning_old_primary_ != instance) co_return;
  if (!reports_primary) {
    returning_old_primary_.reset();  // it came back as a replica by itself (a restart)
    co_return;
  }
  if (!link.reports_primary_since) {
    link.reports_primary_since = now;
  } else if (now - *link.reports_primary_since > kRoleReportedFor) {
    // +convert-to-slave: REPLICAOF the new primary.
    context.send(link.node, ReplicaofCommand{links_[primary_].node});
    link.reports_primary_since.reset();
    returning_old_primary_.reset();
    co_return;
  }
  link.next_info = now + kInfoPeriod;
}

Duration SentinelMonitor::link_timeout() const { return std::max(down_after_ / 2, kPingPeriod); }

bool SentinelMonitor::down(std::size_t instance, LocalTime now) const {
  const Link& link = links_[instance];
  return link.oldest_unanswered_ping && now - *link.oldest_unanswered_ping > down_after_;
}

// The failover state machine (sentinelStartFailoverIfNeeded and
// sentinelFailoverStateMachine), one step per tick as Sentinel takes them.
void SentinelMonitor::step_failover(sim::Context context) {
  const LocalTime now = context.now();
  switch (state_) {
    case State::kIdle:
      // The only replica may be the old primary Sentinel has not converted yet: nothing to promote.
      if (!down(primary_, now) || returning_old_primary_ == replica()) return;
      if (failover_started_ && now - *failover_started_ < kFailoverTimeout * 2) return;  // tried too recently
      // Elected at once (the only Sentinel): the replica is selected on the next tick.
      failover_started_ = now + Duration::milliseconds(static_cast<std::int64_t>(rng_.below(1000)));
      state_ = State::kSelectReplica;
      state_since_ = now;
      return;
    case State::kSelectReplica: {
      const Link& candidate = links_[replica()];
      if (!candidate.connected || down(replica(), now) || now - candidate.last_pong > kReplicaAnsweredWithin) {
        state_ = State::kIdle;  // -failover-abort-no-good-slave
        return;
      }
      state_ = State::kSendReplicaofNoOne;
      state_since_ = now;
      return;
    }
    case State::kSendReplicaofNoOne: {
      Link& promoted = links_[replica()];
      if (!promoted.connected) {
        if (now - state_since_ > kFailoverTimeout) state_ = State::kIdle;  // -failover-abort-slave-timeout
        return;
      }
      context.send(promoted.node, ReplicaofCommand{});
      // The MULTI's CLIENT KILL ends Sentinel's own connection: it reconnects
      // a ping period later and asks for INFO at once.
      promoted.next_info = now + kPingPeriod;
      state_ = State::kWaitPromotion;
      state_since_ = now;
      return;
    }
    case State::kWaitPromotion:
      if (now - state_since_ > kFailoverTimeout) state_ = State::kIdle;  // -failover-abort-slave-timeout
      return;
    case State::kSwitch:
      switch_clients(context);
      return;
  }
}

void SentinelMonitor::switch_clients(sim::Context context) {
  const std::size_t old_primary = primary_;
  primary_ = replica();
  state_ = State::kIdle;
  failover_started_.reset();  // sentinelResetMaster: it may fail over again at once
  returning_old_primary_ = old_primary;
  links_[old_primary].reports_primary_since.reset();
  links_[old_primary].next_info.reset();
  clients_view_->primary_index = primary_;
  clients_view_->old_primary_index = old_primary;
  clients_view_->clients_with_old_primary.clear();
  sim::Simulation& simulation = *simulation_;
  for (std::uint32_t index = 0; index < static_cast<std::uint32_t>(simulation.node_count()); ++index) {
    const sim::NodeId node{index};
    if (simulation.network().is_cut(context.node(), node)) clients_view_->clients_with_old_primary.insert(index);
  }
  // Reached again since its last pong: the pong handler asks for INFO; else now.
  if (links_[old_primary].connected && !links_[old_primary].oldest_unanswered_ping) {
    links_[old_primary].next_info = context.now();
  }
}

// Clients that could not hear +switch-master hear of it once they reach Sentinel.
void SentinelMonitor::follow_clients_back(sim::Context context) {
  auto& stuck = clients_view_->clients_with_old_primary;
  std::erase_if(stuck, [&](std::uint32_t index) {
    return !simulation_->network().is_cut(context.node(), sim::NodeId{index});
  });
}

}  // namespace locksim::model
