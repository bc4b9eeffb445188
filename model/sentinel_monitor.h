#pragma once
// SentinelMonitor: Redis Sentinel (one Sentinel, quorum 1) as a process on
// its own node, `sentinel`, watching a `redis-failover` service over the
// simulated network as Redis 7.0's sentinel.c does (docs/models.md):
//
// - It pings every instance once a second. An instance is down in its view
//   (SDOWN) once its oldest unanswered ping is older than `down_after`; an
//   instance whose process died closes the connection, and Sentinel's
//   reconnect sends a ping at once, so a crash starts that clock at once
//   while a pause, a power loss or a partition starts it at the first ping
//   that goes unanswered. So any unreachable primary is failed over, not only
//   the `failover` fault's.
// - With quorum 1 the primary is objectively down and this Sentinel the
//   leader at once; the failover then takes its timer's ticks (every 50 to
//   100 ms: hz 10 + rand() % 10): select the replica (one that answered a
//   ping within 5 s), send it REPLICAOF NO ONE (the replica serves as primary
//   when it arrives), and learn of its new role from INFO after reconnecting
//   (the REPLICAOF ends Sentinel's own connection with CLIENT KILL, and it
//   reconnects at most once a second). The next tick switches the clients
//   (`+switch-master`). No replica to select: the failover is aborted, and
//   the next may start only 2 × failover-timeout (6 min) after this one.
// - Clients cut off from this node when it switches cannot hear of it and
//   keep using the old primary until they reach Sentinel again.
// - A returning old primary (up again, still a primary) is converted to the
//   new primary's replica at the second INFO after Sentinel reaches it again
//   (it must report "master" for over 8 s; INFO every 10 s).
//
// Left out: TILT mode, Sentinel's own failure detection by other Sentinels,
// the replica's INFO fields (master_link_down_time, offsets).

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "model/redis_sentinel.h"
#include "sim/random.h"
#include "sim/simulation.h"

namespace locksim::model {

class SentinelMonitor {
 public:
  // What Sentinel's commands do when they reach an instance, and whether an
  // instance's host lost power (its connections then hang instead of closing).
  struct Service {
    std::array<sim::NodeId, 2> instances;
    std::function<bool(std::size_t instance)> lost_power;
  };

  SentinelMonitor(sim::Duration down_after, std::shared_ptr<RedisSentinel> clients_view, sim::Rng rng);

  // Adds the `sentinel` node to `simulation`; its process starts at its boot.
  void add_to(sim::Simulation& simulation, Service service);

  // Between the primary going down in Sentinel's view and the clients' switch.
  [[nodiscard]] bool failing_over() const { return state_ != State::kIdle; }

  // Sentinel's timing (sentinel.c, Redis 7.0).
  static constexpr sim::Duration kPingPeriod = sim::Duration::seconds(1);        // sentinel_ping_period
  static constexpr sim::Duration kInfoPeriod = sim::Duration::seconds(10);       // sentinel_info_period
  static constexpr sim::Duration kRoleReportedFor = sim::Duration::seconds(8);  // sentinel_publish_period * 4
  static constexpr sim::Duration kFailoverTimeout = sim::Duration::minutes(3);  // SENTINEL_DEFAULT_FAILOVER_TIMEOUT
  static constexpr sim::Duration kMaxDesync = sim::Duration::seconds(1);        // SENTINEL_MAX_DESYNC

 private:
  enum class State { kIdle, kSelectReplica, kSendReplicaofNoOne, kWaitPromotion, kSwitch };

  // Sentinel's link to one instance (instanceLink) and what it believes of it.
  struct Link {
    sim::NodeId node;
    bool connected = true;
    sim::LocalTime last_pong{};
    sim::LocalTime last_ping{};
    std::optional<sim::LocalTime> oldest_unanswered_ping;  // act_ping_time
    sim::LocalTime last_reconnect{};
    bool info_in_flight = false;
    std::optional<sim::LocalTime> next_info;  // an INFO Sentinel owes this instance
    // A returning old primary: since when it reports "master" while Sentinel calls it a replica.
    std::optional<sim::LocalTime> reports_primary_since;
  };

  sim::Task<> run(sim::Context context);
  void tick(sim::Context context);
  void keep_link(sim::Context context, std::size_t instance);
  sim::Task<> ping(sim::Context context, std::size_t instance);
  sim::Task<> info(sim::Context context, std::size_t instance);
  [[nodiscard]] bool down(std::size_t instance, sim::LocalTime now) const;
  [[nodiscard]] sim::Duration link_timeout() const;
  void step_failover(sim::Context context);
  void switch_clients(sim::Context context);
  void follow_clients_back(sim::Context context);
  [[nodiscard]] std::size_t replica() const { return 1 - primary_; }

  sim::Simulation* simulation_ = nullptr;
  sim::Duration down_after_;
  std::shared_ptr<RedisSentinel> clients_view_;
  sim::Rng rng_;
  Service service_;
  std::array<Link, 2> links_{};
  std::size_t primary_ = 0;  // in Sentinel's view
  State state_ = State::kIdle;
  sim::LocalTime state_since_{};
  std::optional<sim::LocalTime> failover_started_;  // failover_start_time, with its desync
  // After a switch: the old primary, until Sentinel finds it a replica.
  std::optional<std::size_t> returning_old_primary_;
};

}  // namespace locksim::model
