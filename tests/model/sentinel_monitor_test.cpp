// Sentinel fails over any primary it cannot reach (model/sentinel_monitor.*):
// a plain crash, a power loss, a pause longer than down-after or a partition
// from the sentinel node, with Sentinel's own steps timing the promotion.
#include <gtest/gtest.h>

#include "model_test_support.h"

#include "model/redis_service.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::at_ns;
using testing::Event;
using testing::History;
using testing::Plan;
using testing::run_system;

constexpr std::int64_t kSecond = 1'000'000'000;

// Two workers, 20 short jobs each, a 10 s lease, the grant on the replica
// 5 ms later, Sentinel deciding after 10 s.
SystemOptions failover_setup() {
  SystemOptions options;
  options.service.kind = ServiceKind::kRedisFailover;
  options.service.replication_lag = sim::Distribution::constant(5_ms);
  options.service.down_after = 10_s;
  options.lock.lease = 10_s;
  options.workers.count = 2;
  options.workers.work = sim::Distribution::constant(1_s);
  options.workers.retry = sim::Distribution::constant(200_ms);
  options.workload = CounterWorkload{"qty", 20};
  return options;
}

sim::NodeId node(System& system, const char* name) { return *system.find_node(name); }

Plan at_five_seconds(std::function<void(Nemesis&, System&)> fault) {
  return [fault](Nemesis& nemesis, System& system) {
    nemesis.at(sim::Time{} + 5_s, [&nemesis, &system, fault] { fault(nemesis, system); });
  };
}

std::optional<std::int64_t> promoted_at(const History& history) {
  const auto promote = history.first("replica.promote", "redis-1");
  return promote ? std::optional{at_ns(*promote)} : std::nullopt;
}

TEST(SentinelMonitor, APlainCrashOfThePrimaryIsFailedOverJustAfterDownAfter) {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5}) {
    const History history = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                         nemesis.crash(node(system, "redis-0"), std::nullopt);
                                       }),
                                       {.seed = seed});
    const auto promoted = promoted_at(history);
    ASSERT_TRUE(promoted) << "seed " << seed;
    // The closed connection starts Sentinel's clock within a tick; two more
    // ticks (50 to 100 ms each) and REPLICAOF NO ONE is sent.
    EXPECT_GT(*promoted, 15 * kSecond) << "seed " << seed;
    EXPECT_LT(*promoted, 15 * kSecond + 400'000'000) << "seed " << seed;
    // The grant had reached the replica: the lease is adopted, not granted twice.
    EXPECT_EQ(history.promises().double_grants, 0) << "seed " << seed;
    EXPECT_EQ(history.final_values()["qty"].get<int>(), 40) << "seed " << seed;
  }
}

TEST(SentinelMonitor, ClientsFollowOnlyAfterSentinelSeesTheNewRoleAboutASecondLater) {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5}) {
    const History history = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                         nemesis.crash(node(system, "redis-0"), std::nullopt);
                                       }),
                                       {.seed = seed});
    const auto promoted = promoted_at(history);
    ASSERT_TRUE(promoted);
    // Sentinel reconnects after its REPLICAOF's CLIENT KILL (a ping period),
    // asks INFO, and switches on the next tick; the workers retry every 200 ms.
    const auto first_answer = history.first("lease.grant", "redis-1");
    const auto first_release = history.first("lease.release", "redis-1");
    std::int64_t first = first_answer ? at_ns(*first_answer) : INT64_MAX;
    if (first_release) first = std::min(first, at_ns(*first_release));
    ASSERT_NE(first, INT64_MAX);
    EXPECT_GT(first - *promoted, kSecond) << "seed " << seed;
    EXPECT_LT(first - *promoted, kSecond + 600'000'000) << "seed " << seed;
  }
}

TEST(SentinelMonitor, APowerLossIsSeenOnlyWhenAPingGoesUnanswered) {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8}) {
    const History history = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                         nemesis.power_loss(node(system, "redis-0"), std::nullopt);
                                       }),
                                       {.seed = seed});
    const auto promoted = promoted_at(history);
    ASSERT_TRUE(promoted);
    // No FIN from a machine without power: the clock starts at the next ping, within a ping period and a tick.
    EXPECT_GT(*promoted, 15 * kSecond) << "seed " << seed;
    EXPECT_LT(*promoted, 16 * kSecond + 300'000'000) << "seed " << seed;
  }
}

TEST(SentinelMonitor, APauseLongerThanDownAfterIsFailedOverAndTheOldPrimaryConvertedAfterItWakes) {
  // Ends at a time the test chooses: the old primary's role then, and at the run's end.
  const auto role_of_redis_0_at = [](sim::Duration end) {
    sim::SimulationOptions simulation_options;
    simulation_options.time_limit = end;
    simulation_options.network.delay = sim::Distribution::constant(1_ms);
    sim::Simulation simulation{simulation_options};
    System system{simulation, failover_setup()};
    Nemesis nemesis{simulation, system};
    nemesis.at(sim::Time{} + 5_s, [&] { nemesis.pause(*system.find_node("redis-0"), 14_s); });
    simulation.run();
    return dynamic_cast<const RedisService&>(system.service()).instance(0).role();
  };
  // Awake at 19 s and still a primary: Sentinel asks INFO at once and again
  // 10 s later, and only then converts it (it must report "master" for over 8 s).
  EXPECT_EQ(role_of_redis_0_at(28_s), RedisRole::kPrimary);
  EXPECT_EQ(role_of_redis_0_at(31_s), RedisRole::kReplica);
  const History history = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                       nemesis.pause(node(system, "redis-0"), 14_s);
                                     }));
  const auto promoted = promoted_at(history);
  ASSERT_TRUE(promoted);
  EXPECT_LT(*promoted, 19 * kSecond);
  // The clients follow the promoted replica: the old primary, awake, grants nothing more.
  EXPECT_FALSE(history.first("lease.grant", "redis-0", [](const Event& e) { return at_ns(e) > 19 * kSecond; }));
}

TEST(SentinelMonitor, APauseShorterThanDownAfterCausesNoFailover) {
  const History history = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                       nemesis.pause(node(system, "redis-0"), 8_s);
                                     }));
  EXPECT_FALSE(promoted_at(history));
  EXPECT_EQ(history.final_values()["qty"].get<int>(), 40);
}

TEST(SentinelMonitor, APartitionFromSentinelIsFailedOverAndOneThatSparesSentinelIsNot) {
  const History cut_off = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                       nemesis.partition({node(system, "redis-0")},
                                                         {node(system, "sentinel"), node(system, "redis-1"),
                                                          node(system, "worker-1"), node(system, "worker-2")},
                                                         30_s);
                                     }));
  EXPECT_TRUE(promoted_at(cut_off));
  // Sentinel still reaches the primary: the workers merely cannot, and wait.
  const History spared = run_system(failover_setup(), at_five_seconds([](Nemesis& nemesis, System& system) {
                                      nemesis.partition({node(system, "redis-0")},
                                                        {node(system, "worker-1"), node(system, "worker-2")}, 30_s);
                                    }));
  EXPECT_FALSE(promoted_at(spared));
  EXPECT_EQ(spared.final_values()["qty"].get<int>(), 40);
}

TEST(SentinelMonitor, WithoutAReplicaToSelectTheFailoverIsAbortedAndNotTriedAgainForSixMinutes) {
  const History history = run_system(
      failover_setup(),
      [](Nemesis& nemesis, System& system) {
        nemesis.at(sim::Time{} + 1_s, [&nemesis, &system] { nemesis.crash(node(system, "redis-1"), 20_s); });
        nemesis.at(sim::Time{} + 2_s, [&nemesis, &system] { nemesis.crash(node(system, "redis-0"), std::nullopt); });
      },
      {.time_limit = sim::Duration::minutes(8)});
  // Down at about 12 s with the replica down too: -failover-abort-no-good-slave;
  // the replica is back at 21 s, but the next attempt waits 2 × failover-timeout.
  const auto promoted = promoted_at(history);
  ASSERT_TRUE(promoted);
  EXPECT_GT(*promoted, 372 * kSecond);
  EXPECT_LT(*promoted, 374 * kSecond);
}

}  // namespace
}  // namespace locksim::model
