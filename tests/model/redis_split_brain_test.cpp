// Sentinel's failover as it takes time (model/redis_service.*): detection
// after down_after, promotion after that, and the split brain of a primary
// that is cut off but alive, with the two real mitigations,
// min-replicas-to-write and WAIT.
#include <algorithm>

#include <gtest/gtest.h>

#include "model_test_support.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::at_ns;
using testing::Event;
using testing::History;
using testing::Plan;
using testing::run_system;

// Two workers, short jobs, a 10 s lease, Sentinel deciding after 10 s; the
// failover fault fires at 5 s.
SystemOptions sentinel_setup() {
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

Plan failover_at_five_seconds(FailoverFault fault) {
  return [fault](Nemesis& nemesis, System&) { nemesis.at(sim::Time{} + 5_s, [&nemesis, fault] { nemesis.failover(fault); }); };
}

FailoverFault split_brain_for(sim::Duration length) {
  FailoverFault fault;
  fault.primary = FailoverPrimary::kPartition;
  fault.with_primary = {"worker-1"};
  fault.heal_after = length;
  return fault;
}

TEST(SentinelTiming, TheReplicaIsPromotedJustOverDownAfterAfterTheCrashAndNobodyIsGrantedInBetween) {
  const History history = run_system(sentinel_setup(), failover_at_five_seconds(FailoverFault{}));
  const auto promote = history.first("replica.promote", "redis-1");
  ASSERT_TRUE(promote);
  // The crash closes Sentinel's connection: its clock starts within a tick
  // (at most 100 ms), and REPLICAOF NO ONE goes two ticks after it runs out.
  EXPECT_GT(at_ns(*promote), 15'000'000'000);
  EXPECT_LT(at_ns(*promote), 15'400'000'000);
  for (const Event& grant : history.all("lease.grant")) {
    EXPECT_FALSE(at_ns(grant) > 5'000'000'000 && at_ns(grant) < at_ns(*promote)) << grant.dump();
  }
  EXPECT_TRUE(history.first("lease.grant", "redis-1"));
}

TEST(SentinelTiming, ALeaseShorterThanTheDetectionHasRunOutBeforeThePromotedReplicaGrants) {
  SystemOptions options = sentinel_setup();
  options.service.down_after = 30_s;
  const History history = run_system(options, failover_at_five_seconds(FailoverFault{}));
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_FALSE(history.first("lease.adopt"));
}

TEST(SentinelTiming, APartitionHealedBeforeDownAfterCausesNoFailover) {
  const History history = run_system(sentinel_setup(), failover_at_five_seconds(split_brain_for(3_s)));
  EXPECT_FALSE(history.first("replica.promote"));
  EXPECT_EQ(history.count("lease.grant", "redis-1"), 0u);
  EXPECT_EQ(history.final_values()["qty"].get<int>(), 40);
}

TEST(SplitBrain, BothPrimariesGrantTheLockUntilThePartitionHeals) {
  const History history = run_system(sentinel_setup(), failover_at_five_seconds(split_brain_for(20_s)));
  // redis-0 keeps granting worker-1 during the partition (5 s to 25 s) ...
  const auto old_side = history.all("lease.grant", "redis-0");
  EXPECT_TRUE(std::any_of(old_side.begin(), old_side.end(), [](const Event& grant) {
    return at_ns(grant) > 16'000'000'000 && at_ns(grant) < 25'000'000'000 && grant["owner"] == "worker-1";
  }));
  // ... while the promoted redis-1 grants worker-2 from 16 s on.
  const auto new_side = history.first("lease.grant", "redis-1");
  ASSERT_TRUE(new_side);
  EXPECT_EQ((*new_side)["owner"], "worker-2");
  EXPECT_GT(history.promises().double_grants, 0);
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(SplitBrain, SentinelConvertsTheOldPrimaryTenToElevenSecondsAfterTheHealAndWhatItStillHeldIsRecordedLost) {
  SystemOptions options = sentinel_setup();
  // worker-1 still works at the heal, and its last grant on redis-0 outlives the conversion.
  options.lock.lease = 20_s;
  options.workload = CounterWorkload{"qty", 40};
  const History history = run_system(options, failover_at_five_seconds(split_brain_for(20_s)));
  const auto heal = history.first("fault.end", "nemesis", [](const Event& e) { return e["kind"] == "failover"; });
  ASSERT_TRUE(heal);
  EXPECT_EQ(at_ns(*heal), 25'000'000'000);
  // From the heal on, redis-0 grants nothing: its workers follow the new primary.
  for (const Event& grant : history.all("lease.grant", "redis-0")) EXPECT_LT(at_ns(grant), at_ns(*heal));
  // Sentinel's first INFO after reconnecting (within 1 s) starts its 8 s, the next, 10 s later, converts it:
  // what it still promised then is lost.
  const auto lost = history.all("lease.lost", "redis-0");
  ASSERT_FALSE(lost.empty()) << "worker-1's last lease on redis-0 outlives the heal";
  for (const Event& event : lost) {
    EXPECT_GE(at_ns(event), at_ns(*heal) + 10'000'000'000) << event.dump();
    EXPECT_LT(at_ns(event), at_ns(*heal) + 11'000'000'000) << event.dump();
    EXPECT_EQ(event["reason"], "failover");
  }
  // Both workers finish against the one primary left.
  EXPECT_GT(history.count("lease.grant", "redis-1"), 0u);
  EXPECT_EQ(history.count("hold.begin"), history.count("hold.end"));
}

TEST(SplitBrain, AnOnErrorClientKeepsUsingTheOldPrimaryAfterTheHealUntilItsConversion) {
  // redis-py's Sentinel client subscribes to nothing: worker-1, on the old
  // primary's side, keeps its connection there after the heal, and redis-0
  // grants it the lock until Sentinel converts it (10 to 11 s after the heal)
  // and worker-1's next write command is refused READONLY.
  SystemOptions options = sentinel_setup();
  options.workload = CounterWorkload{"qty", 40};
  options.workers.sentinel_discovery = SentinelDiscovery::kOnError;
  const History history = run_system(options, failover_at_five_seconds(split_brain_for(20_s)));
  const std::int64_t heal = 25'000'000'000;
  const auto after_the_heal = [&](const Event& grant) { return at_ns(grant) > heal; };
  const auto old_side = history.all("lease.grant", "redis-0");
  ASSERT_TRUE(std::any_of(old_side.begin(), old_side.end(), after_the_heal));
  for (const Event& grant : old_side) {
    if (after_the_heal(grant)) {
      EXPECT_EQ(grant["owner"], "worker-1");
      EXPECT_LT(at_ns(grant), heal + 11'000'000'000) << grant.dump();
    }
  }
  // Then it asks Sentinel again and follows the new primary.
  EXPECT_TRUE(history.first("lease.grant", "redis-1", [&](const Event& grant) {
    return grant["owner"] == "worker-1" && at_ns(grant) > heal + 10'000'000'000;
  }));
}

TEST(SplitBrain, MinReplicasToWriteStopsTheOldPrimaryGrantingMaxLagAfterTheCut) {
  SystemOptions options = sentinel_setup();
  options.service.min_replicas_to_write = 1;
  options.service.min_replicas_max_lag = 4_s;
  const History history = run_system(options, failover_at_five_seconds(split_brain_for(20_s)));
  // The last acknowledgement before the cut came at 4 s; counted once a
  // second in whole seconds, the replica is good up to second 8 (lag <= 4):
  // redis-0 grants until 9 s, then answers NOREPLICAS.
  const auto old_side = history.all("lease.grant", "redis-0");
  for (const Event& grant : old_side) EXPECT_LT(at_ns(grant), 9'000'000'000);
  EXPECT_TRUE(std::any_of(old_side.begin(), old_side.end(), [](const Event& grant) { return at_ns(grant) > 8'000'000'000; }))
      << "the old primary still grants in second 8";
  const auto refused = history.first("acquire.fail", "worker-1", [](const Event& e) { return e["reason"] == "no-replicas"; });
  ASSERT_TRUE(refused);
  EXPECT_GE(at_ns(*refused), 9'000'000'000);
  // The promoted replica's only replica is the cut-off old primary: it refuses
  // writes until Sentinel converts the old primary, 10 to 11 s after the heal at 25 s.
  for (const Event& grant : history.all("lease.grant", "redis-1")) EXPECT_GT(at_ns(grant), 35'000'000'000);
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_EQ(history.final_values()["qty"].get<int>(), 40);
}

TEST(SplitBrain, NoReplicasRefusesOnlyAScriptThatGetsToWrite) {
  // worker-1 works 12 s on a 10 s lease granted at 0: its key is gone (expired) when it releases at
  // about 12 s, after redis-0 began refusing writes at 9 s. A compare-and-delete that finds no key of
  // its caller's runs no DEL, so Redis answers it as usual (0), not NOREPLICAS.
  SystemOptions options = sentinel_setup();
  options.service.min_replicas_to_write = 1;
  options.service.min_replicas_max_lag = 4_s;
  options.workers.work = sim::Distribution::constant(12_s);
  const History history = run_system(options, failover_at_five_seconds(split_brain_for(20_s)));
  const auto release = history.first("release.fail", "worker-1");
  ASSERT_TRUE(release);
  EXPECT_GT(at_ns(*release), 9'000'000'000);
  EXPECT_EQ((*release)["reason"], "not-owner");
}

TEST(SplitBrain, WaitKeepsEveryWorkerFromActingOnAGrantTheReplicaLacks) {
  SystemOptions options = sentinel_setup();
  options.workers.wait_replicas = WaitReplicas{1, 1_s};
  const History history = run_system(options, failover_at_five_seconds(split_brain_for(20_s)));
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_TRUE(history.first("acquire.fail", "worker-1", [](const Event& e) { return e["reason"] == "not-replicated"; }));
  // A grant WAIT rejected is given back by its owner at once.
  const auto given_back = history.first("lease.release", "redis-0", [](const Event& e) {
    return e["by"] == e["owner"] && at_ns(e) > 5'000'000'000;
  });
  EXPECT_TRUE(given_back);
  EXPECT_EQ(history.final_values()["qty"].get<int>(), 40);
}

TEST(SplitBrain, WithoutMitigationsTheTwoBrainsLoseUpdates) {
  const History history = run_system(sentinel_setup(), failover_at_five_seconds(split_brain_for(20_s)));
  EXPECT_LT(history.final_values()["qty"].get<int>(), static_cast<int>(history.count("write.accept")));
}

}  // namespace
}  // namespace locksim::model
