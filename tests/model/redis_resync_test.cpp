// The replication link after a restart (redis-failover, model/redis_instance.*):
// a restarted replica continues its primary's stream at once (PSYNC from the
// RDB of its last sync); the replica of a restarted primary, whose
// replication ID is new, gets a full resync 4 to 6 s later
// (repl-diskless-sync-delay 5) and until then keeps what it had and follows
// no stream.
#include <gtest/gtest.h>

#include "model_test_support.h"

#include "model/redis_service.h"
#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::History;
using testing::Plan;
using testing::run_system;

// Two workers, one 20 s job each under a 60 s lease: worker-1's grant
// (at about t = 0) is the lease every test follows. Sentinel fails over as
// soon as the primary is gone: these tests are about what the replica holds.
SystemOptions resync_setup() {
  SystemOptions options;
  options.service.kind = ServiceKind::kRedisFailover;
  options.service.replication_lag = sim::Distribution::constant(5_ms);
  options.service.down_after = 0_s;
  options.lock.lease = 60_s;
  options.workers.count = 2;
  options.workers.work = sim::Distribution::constant(20_s);
  options.workload = CounterWorkload{"qty", 1};
  return options;
}

const RedisInstance& instance_on(System& system, std::string_view name) {
  return *system.service().redis_instance_on(*system.find_node(name));
}

// Restarts the replica at 2 s (down 100 ms) and crashes the primary for good
// `crash_after` the replica's restart.
Plan restart_replica_then_crash_primary(sim::Duration crash_after) {
  return [crash_after](Nemesis& nemesis, System& system) {
    const sim::NodeId replica = *system.find_node("redis-1");
    const sim::NodeId primary = *system.find_node("redis-0");
    nemesis.at(sim::Time{} + 2_s, [&nemesis, replica] { nemesis.crash(replica, 100_ms); });
    const sim::Time crash_at = sim::Time{} + 2_s + 100_ms + crash_after;
    nemesis.at(crash_at, [&nemesis, primary] { nemesis.crash(primary, std::nullopt); });
  };
}

// Restarts `restarted` at 2 s (down 100 ms), and at each of `samples` notes
// in `holds_the_lock` whether the replica (redis-1) holds the lock's key.
Plan restart_and_sample_the_replica(std::string restarted, std::vector<sim::Duration> samples,
                                    std::vector<bool>& holds_the_lock) {
  return [restarted, samples, &holds_the_lock](Nemesis& nemesis, System& system) {
    const sim::NodeId node = *system.find_node(restarted);
    nemesis.at(sim::Time{} + 2_s, [&nemesis, node] { nemesis.crash(node, 100_ms); });
    for (const sim::Duration sample : samples) {
      nemesis.at(sim::Time{} + sample, [&holds_the_lock, &system] {
        holds_the_lock.push_back(instance_on(system, "redis-1").data().keys.contains("lock"));
      });
    }
  };
}

TEST(ReplicaResync, ARestartedReplicaCatchesUpAtOnceByAPartialResync) {
  std::vector<bool> holds_the_lock;
  (void)run_system(resync_setup(), restart_and_sample_the_replica("redis-1", {2200_ms, 8500_ms}, holds_the_lock));
  // Restarted empty at 2.1 s (no persistence), it asks at once with the ID
  // of its primary's stream, which has not changed: the backlog brings it
  // up to date within a replication lag.
  ASSERT_EQ(holds_the_lock.size(), 2u);
  EXPECT_TRUE(holds_the_lock[0]);
  EXPECT_TRUE(holds_the_lock[1]);
}

TEST(ReplicaResync, AFailoverJustAfterAReplicaRestartAdoptsTheLeaseAndGrantsNothingTwice) {
  const History history = run_system(resync_setup(), restart_replica_then_crash_primary(1_s));
  EXPECT_EQ(history.count("lease.adopt", "redis-1"), 1u);
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_EQ(history.overlapping_holds(), 0);
}

// The lock key's owner on `instance` ("" when it has none).
std::string owner_on(System& system, std::string_view instance) {
  const auto& keys = instance_on(system, instance).data().keys;
  const auto key = keys.find("lock");
  return key == keys.end() ? "" : key->second.owner;
}

TEST(ReplicaResync, AReplicaWithAnAofRestartsFromItAndWaitsForAFullResync) {
  SystemOptions options = resync_setup();
  options.service.persistence = Persistence::kAlways;
  options.workers.work = sim::Distribution::constant(5_s);  // the second grant at about 5 s
  std::vector<std::pair<std::string, std::string>> owners;  // primary's, replica's
  const Plan plan = [&owners](Nemesis& nemesis, System& system) {
    const sim::NodeId replica = *system.find_node("redis-1");
    nemesis.at(sim::Time{} + 2_s, [&nemesis, replica] { nemesis.crash(replica, 100_ms); });
    for (const sim::Duration sample : {2200_ms, 5500_ms, 8500_ms}) {
      nemesis.at(sim::Time{} + sample, [&owners, &system] {
        owners.emplace_back(owner_on(system, "redis-0"), owner_on(system, "redis-1"));
      });
    }
  };
  (void)run_system(options, plan);
  ASSERT_EQ(owners.size(), 3u);
  // Its AOF kept the first holder's key, but no replication ID: it asked for
  // a full resync at 2.1 s, which comes 4 to 6 s later, so the second grant
  // reaches it only then.
  EXPECT_FALSE(owners[0].second.empty());
  EXPECT_EQ(owners[0].first, owners[0].second);
  EXPECT_NE(owners[1].first, owners[1].second);
  EXPECT_EQ(owners[1].second, owners[0].second) << "still the first holder's, from its AOF";
  EXPECT_EQ(owners[2].first, owners[2].second);
  EXPECT_EQ(owners[2].first, owners[1].first);
}

// The primary restarts at 2 s with `appendfsync always` (it keeps the key,
// but its replication ID is new); the holder releases at about 5 s and the
// lock is granted again on it; the primary crashes for good at
// `crash_at`, and Sentinel fails it over 30 s later. The replica asked for
// its full resync at about 2.1 s.
History primary_restart_then_crash(sim::Duration crash_at) {
  SystemOptions options = resync_setup();
  options.service.persistence = Persistence::kAlways;
  options.service.down_after = 30_s;  // no failover while the primary is restarting
  options.workers.work = sim::Distribution::constant(5_s);
  options.workload = CounterWorkload{"qty", 2};  // someone still wants the lock at the failover
  const Plan plan = [crash_at](Nemesis& nemesis, System& system) {
    const sim::NodeId primary = *system.find_node("redis-0");
    nemesis.at(sim::Time{} + 2_s, [&nemesis, primary] { nemesis.crash(primary, 100_ms); });
    nemesis.at(sim::Time{} + crash_at, [&nemesis, primary] { nemesis.crash(primary, std::nullopt); });
  };
  return run_system(options, plan);
}

// The token of the restarted primary's first grant (at about 5 s).
std::int64_t first_token_after_the_restart(const History& history) {
  const auto grant = history.first("lease.grant", "redis-0", [](const auto& event) {
    return event["t"].template get<std::int64_t>() > (2100_ms).count_ns();
  });
  return grant ? (*grant)["token"].get<std::int64_t>() : -1;
}

bool lost_at_the_failover(const History& history, std::int64_t token) {
  return history
      .first("lease.lost", "redis-0",
             [token](const auto& event) { return event["reason"] == "failover" && event["token"] == token; })
      .has_value();
}

TEST(ReplicaResync, AGrantOfARestartedPrimaryBeforeItsReplicasFullResyncIsLostInAFailover) {
  const History history = primary_restart_then_crash(6_s);
  const std::int64_t token = first_token_after_the_restart(history);
  ASSERT_GT(token, 0);
  EXPECT_TRUE(lost_at_the_failover(history, token));
  EXPECT_EQ(history.count("lease.adopt", "redis-1"), 0u);
  EXPECT_GT(history.promises().double_grants, 0);
}

TEST(ReplicaResync, AGrantOfARestartedPrimaryAfterItsReplicasFullResyncIsAdoptedInAFailover) {
  const History history = primary_restart_then_crash(9_s);
  const std::int64_t token = first_token_after_the_restart(history);
  ASSERT_GT(token, 0);
  EXPECT_FALSE(lost_at_the_failover(history, token));
  EXPECT_TRUE(history.first("lease.adopt", "redis-1", [token](const auto& event) { return event["token"] == token; }));
  EXPECT_EQ(history.promises().double_grants, 0);
}

TEST(ReplicaResync, APrimaryRestartedWithoutPersistenceWipesItsReplicaAtTheResync) {
  std::vector<bool> replica_holds_the_lock;
  const Plan plan = restart_and_sample_the_replica("redis-0", {3_s, 10_s}, replica_holds_the_lock);
  SystemOptions options = resync_setup();
  options.workers.count = 1;       // nobody acquires again on the emptied primary
  options.service.down_after = 30_s;  // back long before Sentinel would fail it over
  const History history = run_system(options, plan);
  ASSERT_TRUE(history.first("lease.lost", "redis-0", [](const auto& event) { return event["reason"] == "restart"; }));
  ASSERT_EQ(replica_holds_the_lock.size(), 2u);
  EXPECT_TRUE(replica_holds_the_lock[0]);   // its old copy, until the snapshot
  EXPECT_FALSE(replica_holds_the_lock[1]);  // the empty primary's snapshot replaced it
}

TEST(ReplicaResync, APartitionBetweenPrimaryAndReplicaDelaysTheStreamAndLosesNothing) {
  const Plan plan = [](Nemesis& nemesis, System& system) {
    const sim::NodeId primary = *system.find_node("redis-0");
    const sim::NodeId replica = *system.find_node("redis-1");
    // Cut just before the first grant ships, crash the primary 5 s after the heal.
    nemesis.at(sim::Time{}, [&nemesis, primary, replica] { nemesis.partition({primary}, {replica}, 1_s); });
    nemesis.at(sim::Time{} + 6_s, [&nemesis, primary] { nemesis.crash(primary, std::nullopt); });
  };
  const History history = run_system(resync_setup(), plan);
  EXPECT_EQ(history.count("lease.adopt", "redis-1"), 1u);
  EXPECT_EQ(history.promises().double_grants, 0);
}

// A replica keeps a key past its deadline until its primary's DEL arrives,
// but answers a read of it as if it were gone: storage, cut off from the
// primary, validates a late write with the replica and refuses it.
TEST(ReplicaReads, AReplicaAnswersAKeyPastItsDeadlineAsGone) {
  SystemOptions options = resync_setup();
  options.lock.lease = 2_s;  // runs out under the 20 s job
  options.workers.count = 1;
  options.storage.fencing = Fencing::kOn;
  options.storage.validate = Validation::kService;
  const Plan plan = [](Nemesis& nemesis, System& system) {
    const sim::NodeId primary = *system.find_node("redis-0");
    const sim::NodeId replica = *system.find_node("redis-1");
    // From 1 s, the primary's DEL at expiry cannot reach the replica, and
    // storage cannot reach the primary: it asks the replica.
    nemesis.at(sim::Time{} + 1_s, [&nemesis, &system, primary, replica] {
      nemesis.partition({primary}, {replica, system.storage_node()}, 60_s);
    });
  };
  const History history = run_system(options, plan);
  EXPECT_EQ(history.count("write.accept"), 0u);
  EXPECT_TRUE(history.first("write.reject", "storage",
                            [](const auto& event) { return event["reason"] == "not-current"; }));
}

}  // namespace
}  // namespace locksim::model
