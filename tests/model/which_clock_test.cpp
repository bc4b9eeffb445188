// Which clock each model decides by (issue 9, item 2): Redis expires keys by
// its wall clock; the consensus node times sessions on its monotonic clock;
// a client checks its lease on the clock it is configured with; sleeps and
// work run on the monotonic clock.
#include <gtest/gtest.h>

#include "model_test_support.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::run_system;
using testing::two_workers_one_job;

SystemOptions consensus_holder_renewing_through_long_work() {
  SystemOptions options = two_workers_one_job();
  options.service.kind = ServiceKind::kConsensus;
  options.service.nodes = 1;  // the single node; the ensemble: consensus_ensemble_test.cpp
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.renew_every = 3_s;
  options.workers.work = sim::Distribution::constant(15_s);
  return options;
}

TEST(WhichClock, AWallClockJumpOnTheConsensusNodeExpiresNoSession) {
  const History history = run_system(consensus_holder_renewing_through_long_work(), [](Nemesis& nemesis, System& system) {
    nemesis.at(sim::Time{} + 5_s, [&nemesis, &system] { nemesis.jump_clock(system.service().nodes()[0], 30_s); });
  });
  EXPECT_EQ(history.count("lease.expire", "consensus"), 0u);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_EQ(history.final_values()["qty"], 2);
}

TEST(WhichClock, ADriftOnTheConsensusNodeStillShortensSessions) {
  // A monotonic clock runs fast with its oscillator: a 50 % fast node ends a
  // 10 s session after about 6.7 true seconds, while the holder (renewing
  // every 8 s on its own clock) believes it has time.
  SystemOptions options = consensus_holder_renewing_through_long_work();
  options.workers.renew_every = 8_s;
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.at(sim::Time{}, [&nemesis, &system] { nemesis.drift_clock(system.service().nodes()[0], 500'000 - 1); });
  });
  EXPECT_GT(history.count("lease.expire", "consensus"), 0u);
}

TEST(WhichClock, RedisStillExpiresByItsWallClockSoAForwardJumpEndsTheKeyAtOnce) {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = 30_s;
  options.workers.work = sim::Distribution::constant(10_s);
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.at(sim::Time{} + 5_s, [&nemesis, &system] { nemesis.jump_clock(system.service().nodes()[0], 30_s); });
  });
  const auto expiry = history.first("lease.expire", "redis-0");
  ASSERT_TRUE(expiry);
  EXPECT_EQ((*expiry)["t"], 5'000'000'000);
}

TEST(WhichClock, WorkRunsOnTheMonotonicClockSoAWallJumpNeitherShortensNorStretchesIt) {
  for (const sim::Duration jump : {20_s, -(20_s)}) {
    SystemOptions options = two_workers_one_job();
    options.workers.count = 1;
    options.workers.work = sim::Distribution::constant(5_s);
    const History history = run_system(options, [jump](Nemesis& nemesis, System& system) {
      nemesis.at(sim::Time{} + 1_s, [&nemesis, &system, jump] { nemesis.jump_clock(system.worker_node(1), jump); });
    });
    const auto read = history.first("read.ok", "worker-1");
    const auto write = history.first("write.invoke", "worker-1");
    ASSERT_TRUE(read && write);
    EXPECT_EQ((*write)["t"].get<std::int64_t>() - (*read)["t"].get<std::int64_t>(), 5'000'000'000);
  }
}

TEST(WhichClock, AWallClockClientSetForwardGivesUpALeaseItStillHas) {
  // The other side of H3: a wall clock set forward makes a wall-clock client
  // believe its lease ran out; it stops short of writing, and the job is redone.
  SystemOptions options = two_workers_one_job();
  options.workers.count = 1;
  options.workers.check_before_write = true;
  options.workers.work = sim::Distribution::constant(2_s);
  for (const sim::ClockKind clock : {sim::ClockKind::kWall, sim::ClockKind::kMonotonic}) {
    options.workers.clock = clock;
    const History history = run_system(options, [](Nemesis& nemesis, System& system) {
      nemesis.at(sim::Time{} + 1_s, [&nemesis, &system] { nemesis.jump_clock(system.worker_node(1), 20_s); });
    });
    const auto first_end = history.first("hold.end", "worker-1");
    ASSERT_TRUE(first_end);
    EXPECT_EQ((*first_end)["reason"], clock == sim::ClockKind::kWall ? "expired" : "released");
  }
}

}  // namespace
}  // namespace locksim::model
