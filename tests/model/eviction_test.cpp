// Eviction under maxmemory (issue 9, item 6; issue 26, item 7): volatile-ttl
// evicts the key nearest its expiry (a lock key before long-lived cache keys),
// volatile-lru and allkeys-lru the least recently used, and noeviction
// nothing — among the keys a sample met, as Redis samples maxmemory-samples
// keys into its eviction pool. An evicted lock key is lease.lost reason
// evicted, and the lock can be granted again while its holder still works: a
// double grant with no fault in the lock's logic.
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
                            int keys, int samples = 5, std::uint64_t seed = 1,
                            sim::Duration lasting = sim::Duration::zero()) {
  SystemOptions options = two_workers_one_job();
  options.service.memory = RedisMemoryOptions{policy, other_keys, other_keys_ttl, samples};
  options.workers.work = sim::Distribution::constant(5_s);
  testing::RunSettings settings;
  settings.seed = seed;
  return run_system(
      options,
      [keys, lasting](Nemesis& nemesis, System& system) {
        nemesis.after_event("redis-0", EventKind::kLeaseGrant, 1, 1_s, [&nemesis, &system, keys, lasting] {
          nemesis.memory_pressure(system.service().nodes()[0], keys, lasting);
        });
      },
      settings);
}

bool evicted_the_lock(const History& history) {
  return history.first("lease.lost", "redis-0", [](const Event& e) { return e["reason"] == "evicted"; }).has_value();
}

TEST(Eviction, VolatileTtlEvictsTheHeldLockBeforeLongLivedCacheKeysAndTheLockIsGrantedTwice) {
  // Five keys in all: the five samples meet every one, the lock's the nearest expiry.
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileTtl, 4, 60_min, 1);
  ASSERT_TRUE(evicted_the_lock(history));
  EXPECT_EQ((*history.first("lease.lost", "redis-0"))["owner"], "worker-1");
  EXPECT_GT(history.promises().double_grants, 0);
  EXPECT_GT(history.overlapping_holds(), 0);
}

// In how many of `runs` seeds one eviction among the lock and 1,000 cache keys took the lock.
int runs_that_evicted_the_lock(int samples, int runs) {
  int evicted = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    if (evicted_the_lock(pressure_while_held(MaxmemoryPolicy::kVolatileTtl, 1000, 60_min, 1, samples,
                                             static_cast<std::uint64_t>(seed)))) {
      ++evicted;
    }
  }
  return evicted;
}

TEST(Eviction, OneEvictionAmongAThousandKeysTakesTheLockOnlyWhenItsSampleMeetsIt) {
  // 5 samples of 1,001 keys meet the lock with probability 5/1001, about 0.5 %:
  // 1,000 seeds expect 5 (a binomial's standard deviation, 2.2).
  const int five = runs_that_evicted_the_lock(5, 1000);
  EXPECT_GE(five, 1);
  EXPECT_LE(five, 12);
  // maxmemory-samples 64: 64/1001, about 6.4 %: 64 expected of 1,000 (sd 7.7).
  const int sixty_four = runs_that_evicted_the_lock(64, 1000);
  EXPECT_GE(sixty_four, 42);
  EXPECT_LE(sixty_four, 88);
  EXPECT_GT(sixty_four, five);
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

// One worker, two jobs 2 s apart; 1 s after the first release, when the lock
// key is gone and the counter (a key without a TTL) is the only lock key left,
// the instance must free the room of one key. Redis-0's grants.
std::vector<Event> grants_around_pressure_between_holds(MaxmemoryPolicy policy) {
  SystemOptions options = two_workers_one_job();
  options.workers.count = 1;
  options.workload = CounterWorkload{"qty", 2};
  options.workers.between = sim::Distribution::constant(2_s);
  options.service.memory.policy = policy;
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.after_event("redis-0", EventKind::kLeaseRelease, 1, 1_s,
                        [&nemesis, &system] { nemesis.memory_pressure(system.service().nodes()[0], 1); });
  });
  EXPECT_FALSE(evicted_the_lock(history));
  return history.all("lease.grant", "redis-0");
}

TEST(Eviction, AllkeysLruEvictsTheTokenCounterBetweenHoldsAndTheNextTokenRepeats) {
  const std::vector<Event> grants = grants_around_pressure_between_holds(MaxmemoryPolicy::kAllkeysLru);
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[0]["token"], 1);
  EXPECT_EQ(grants[1]["token"], 1);  // INCR of a missing key: 1 again
}

TEST(Eviction, VolatilePoliciesNeverEvictTheTokenCounter) {
  const std::vector<Event> grants = grants_around_pressure_between_holds(MaxmemoryPolicy::kVolatileLru);
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[1]["token"], 2);
}

TEST(Eviction, NoevictionEvictsNothingAndTheLockIsGrantedOnce) {
  const History history = pressure_while_held(MaxmemoryPolicy::kNoEviction, 1000, 60_min, 5);
  EXPECT_FALSE(evicted_the_lock(history));
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.first("fault.begin", "nemesis", [](const Event& e) { return e["kind"] == "memory-pressure"; }));
}

bool out_of_memory(const Event& e) { return e["reason"] == "out-of-memory"; }

// Noeviction with pressure lasting 20 s from 1 s after worker-1's grant:
// worker-2's tries answer -OOM; worker-1's release (a compare-and-delete,
// whose DEL may not grow memory) still runs; the next grant comes only when
// the pressure is over.
TEST(Eviction, NoevictionUnderLastingPressureAnswersAcquiresOomUntilItEndsAndStillReleases) {
  const History history = pressure_while_held(MaxmemoryPolicy::kNoEviction, 1000, 60_min, 1, 5, 1, 20_s);
  const auto begin = history.first("fault.begin", "nemesis");
  const auto end = history.first("fault.end", "nemesis");
  ASSERT_TRUE(begin && end);
  EXPECT_EQ((*end)["t"].get<std::int64_t>() - (*begin)["t"].get<std::int64_t>(), (20_s).count_ns());
  const auto refused = history.first("acquire.fail", "worker-2", out_of_memory);
  ASSERT_TRUE(refused);
  EXPECT_GT((*refused)["t"], (*begin)["t"]);
  EXPECT_TRUE(history.first("release.ok", "worker-1")) << "DEL is not refused for memory";
  const std::vector<Event> grants = history.all("lease.grant", "redis-0");
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_GE(grants[1]["t"], (*end)["t"]) << "worker-2 is granted only once memory is under the limit";
  for (const Event& fail : history.all("acquire.fail", "worker-2")) {
    if (fail["t"] > (*end)["t"]) ADD_FAILURE() << "an acquire refused after the pressure ended: " << fail;
  }
  EXPECT_EQ(history.promises().double_grants, 0);
}

TEST(Eviction, APolicyThatFreedTheRoomAnswersNoOomWhileThePressureLasts) {
  const History history = pressure_while_held(MaxmemoryPolicy::kAllkeysLru, 1000, std::nullopt, 1, 5, 1, 20_s);
  EXPECT_FALSE(history.first("acquire.fail", "worker-2", out_of_memory));
  const auto begin = history.first("fault.begin", "nemesis");
  ASSERT_TRUE(begin);
  const std::vector<Event> grants = history.all("lease.grant", "redis-0");
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_LT(grants[1]["t"].get<std::int64_t>(), (*begin)["t"].get<std::int64_t>() + (20_s).count_ns())
      << "worker-2 is granted the released lock while the pressure lasts";
}

TEST(Eviction, APolicyThatRanOutOfKeysToEvictStaysOverMaxmemoryAndAnswersOom) {
  // volatile-ttl with no other key with a TTL: it evicts the lock and finds nothing more for the second key's room.
  const History history = pressure_while_held(MaxmemoryPolicy::kVolatileTtl, 1000, std::nullopt, 2, 5, 1, 20_s);
  EXPECT_TRUE(evicted_the_lock(history));
  EXPECT_TRUE(history.first("acquire.fail", "worker-2", out_of_memory));
  EXPECT_EQ(history.promises().double_grants, 0) << "full, it grants nobody the evicted lock meanwhile";
}

}  // namespace
}  // namespace locksim::model
