// Eviction under maxmemory (issue 9, item 6): volatile-ttl evicts the key
// nearest its expiry (a lock key before long-lived cache keys), volatile-lru
// and allkeys-lru the least recently used, and noeviction nothing. An evicted
// lock key is lease.lost reason evicted, and the lock can be granted again
// while its holder still works: a double grant with no fault in the lock's logic.
#include <gtest/gtest.h>

#include "model_test_support.h"

#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::run_system;
using testing::two_workers_one_job;

// worker-1 holds the lock (10 s lease, 5 s work); 1 s after the grant the
// instance must free the room of `keys` keys.
History pressure_while_held(MaxmemoryPolicy policy, int other_keys, std::optional<sim::Duration> other_keys_ttl,
                            int keys) {
  SystemOptions options = two_workers_one_job();
  options.service.memory = RedisMemoryOptions{policy, other_keys, other_keys_ttl};
  options.workers.work = sim::Distribution::constant(5_s);
  return run_system(options, [keys](Nemesis& nemesis, System& system) {
    nemesis.after_event("redis-0", EventKind::kLeaseGrant, 1, 1_s,
                        [&nemesis, &system, keys] { nemesis.memory_pressure(system.service().nodes()[0], keys); });
  });
}

bool evicted_the_lock(const History& history) {
  return history.first("lease.lost", "redis-0", [](const Event& e) { return e["reason"] == "evicted"; }).has_value();
}

TEST(Eviction, VolatileTtlEvictsTheHeldLockBeforeLongLivedCacheKeysAndTheLockIsGrantedTwice) {
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileTtl, 1000, 60_min, 1);
  ASSERT_TRUE(evicted_the_lock(history));
  EXPECT_EQ((*history.first("lease.lost", "redis-0"))["owner"], "worker-1");
  EXPECT_GT(history.promises().double_grants, 0);
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(Eviction, VolatileTtlTakesCacheKeysFirstWhenTheyExpireSooner) {
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileTtl, 3, 2_s, 3);
  EXPECT_FALSE(evicted_the_lock(history));
  EXPECT_EQ(history.promises().double_grants, 0);
}

TEST(Eviction, VolatileLruSparesTheRecentlyUsedLockWhileOlderKeysWithATtlRemain) {
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileLru, 2, 60_min, 2);
  EXPECT_FALSE(evicted_the_lock(history));
  EXPECT_EQ(history.promises().double_grants, 0);
}

TEST(Eviction, VolatileLruEvictsTheLockOnceTheOtherKeysWithATtlAreGone) {
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileLru, 2, 60_min, 3);
  EXPECT_TRUE(evicted_the_lock(history));
  EXPECT_GT(history.promises().double_grants, 0);
}

TEST(Eviction, VolatilePoliciesNeverEvictKeysWithoutATtlSoTheLockGoesFirst) {
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileLru, 1000, std::nullopt, 1);
  EXPECT_TRUE(evicted_the_lock(history));
}

TEST(Eviction, AllkeysLruEvictsOlderKeysWithoutATtlBeforeTheLock) {
  EXPECT_FALSE(evicted_the_lock(pressure_while_held(MaxmemoryPolicy::kAllkeysLru, 2, std::nullopt, 2)));
  EXPECT_TRUE(evicted_the_lock(pressure_while_held(MaxmemoryPolicy::kAllkeysLru, 2, std::nullopt, 3)));
}

TEST(Eviction, AllkeysLruEvictsALockWithoutALease) {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = std::nullopt;
  options.service.memory.policy = MaxmemoryPolicy::kAllkeysLru;
  options.workers.work = sim::Distribution::constant(5_s);
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.after_event("redis-0", EventKind::kLeaseGrant, 1, 1_s,
                        [&nemesis, &system] { nemesis.memory_pressure(system.service().nodes()[0], 1); });
  });
  EXPECT_TRUE(evicted_the_lock(history));
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(Eviction, NoevictionEvictsNothingAndTheLockIsGrantedOnce) {
  const History history = pressure_while_held(MaxmemoryPolicy::kNoEviction, 1000, 60_min, 5);
  EXPECT_FALSE(evicted_the_lock(history));
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.first("fault.begin", "nemesis", [](const Event& e) { return e["kind"] == "memory-pressure"; }));
}

}  // namespace
}  // namespace locksim::model
