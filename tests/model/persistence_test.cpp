// Persistence as Redis behaves (issue 9, item 4; issue 26, item 4):
// appendfsync everysec loses, on a power loss (machine crash), the writes
// Redis 7.0 had not fsynced yet — a write made in a second already fsynced
// waits for the first event-loop turn after the next whole second, while the
// first write of a quiet second is fsynced at once — but none on a process
// crash, since the kernel still holds the written AOF; always loses nothing;
// none loses everything on any restart.
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

enum class Outage { kProcessCrash, kPowerLoss };

// worker-1 is granted the lock at about 1 ms, the first write of a quiet
// second; the instance goes down 300 ms later and is back 100 ms after that,
// while worker-1 still works (5 s).
History grant_then_outage(Persistence persistence, Outage outage) {
  SystemOptions options = two_workers_one_job();
  options.service.persistence = persistence;
  options.workers.work = sim::Distribution::constant(5_s);
  return run_system(options, [outage](Nemesis& nemesis, System& system) {
    nemesis.after_event("redis-0", EventKind::kLeaseGrant, 1, 300_ms, [&nemesis, &system, outage] {
      const sim::NodeId instance = system.service().nodes()[0];
      if (outage == Outage::kProcessCrash) {
        nemesis.crash(instance, 100_ms);
      } else {
        nemesis.power_loss(instance, 100_ms);
      }
    });
  });
}

bool forgot_the_lease(const History& history) {
  return history.first("lease.lost", "redis-0", [](const Event& e) { return e["reason"] == "restart"; }).has_value();
}

TEST(Persistence, EverysecKeepsEveryAcknowledgedWriteThroughAProcessCrash) {
  const History history = grant_then_outage(Persistence::kEverySecond, Outage::kProcessCrash);
  EXPECT_FALSE(forgot_the_lease(history));
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_EQ(history.overlapping_holds(), 0);
}

TEST(Persistence, EverysecFsyncsTheFirstWriteOfAQuietSecondAtOnce) {
  const History history = grant_then_outage(Persistence::kEverySecond, Outage::kPowerLoss);
  EXPECT_FALSE(forgot_the_lease(history));
  EXPECT_EQ(history.promises().double_grants, 0);
  EXPECT_TRUE(history.first("fault.begin", "nemesis", [](const Event& e) { return e["kind"] == "power-loss"; }));
}

// Three workers with 100 ms jobs: worker-1's grant (at about 1 ms) is fsynced
// at once; its release (about 0.1 s) and the second grant (before 0.7 s) come
// in the same second, so they wait for the first turn after 1 s. The power
// goes `after` the second grant.
History second_grant_then_power_loss(sim::Duration after) {
  SystemOptions options = two_workers_one_job();
  options.workers.count = 3;
  options.service.persistence = Persistence::kEverySecond;
  return run_system(options, [after](Nemesis& nemesis, System& system) {
    nemesis.after_event("redis-0", EventKind::kLeaseGrant, 2, after,
                        [&nemesis, &system] { nemesis.power_loss(system.service().nodes()[0], 100_ms); });
  });
}

TEST(Persistence, EverysecLosesAWriteOfASecondAlreadyFsyncedInAPowerLossAndRegrantsTheLock) {
  const History history = second_grant_then_power_loss(100_ms);
  const auto second_grant = history.all("lease.grant", "redis-0").at(1);
  ASSERT_LT(second_grant["t"].get<std::int64_t>(), 900'000'000) << "the second grant came in the first second";
  EXPECT_TRUE(forgot_the_lease(history));
  EXPECT_GT(history.promises().double_grants, 0) << "the lost grant's 10 s lease was still promised";
}

TEST(Persistence, EverysecKeepsWhatTheFirstTurnAfterTheNextWholeSecondFsynced) {
  // The power goes 1.2 s after the second grant: serverCron's turn just after 1 s fsynced it.
  const History history = second_grant_then_power_loss(1200_ms);
  EXPECT_FALSE(forgot_the_lease(history));
  EXPECT_EQ(history.promises().double_grants, 0);
}

TEST(Persistence, AlwaysLosesNothingEvenInAPowerLoss) {
  const History history = grant_then_outage(Persistence::kAlways, Outage::kPowerLoss);
  EXPECT_FALSE(forgot_the_lease(history));
  EXPECT_EQ(history.promises().double_grants, 0);
}

TEST(Persistence, NoneLosesEverythingInEitherOutage) {
  for (const Outage outage : {Outage::kProcessCrash, Outage::kPowerLoss}) {
    const History history = grant_then_outage(Persistence::kNone, outage);
    EXPECT_TRUE(forgot_the_lease(history));
    EXPECT_GT(history.promises().double_grants, 0);
  }
}

}  // namespace
}  // namespace locksim::model
