// Persistence as Redis behaves (issue 9, item 4): appendfsync everysec loses
// up to a second of acknowledged writes on a power loss (machine crash) but
// none on a process crash, since the kernel still holds the written AOF;
// always loses nothing; none loses everything on any restart.
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

// worker-1 is granted the lock at about 1 ms; the instance goes down 300 ms
// later (before its first everysec fsync, due at the whole second) and is
// back 100 ms after that, while worker-1 still works (5 s).
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

TEST(Persistence, EverysecLosesTheUnsyncedSecondInAPowerLossAndRegrantsTheLock) {
  const History history = grant_then_outage(Persistence::kEverySecond, Outage::kPowerLoss);
  EXPECT_TRUE(forgot_the_lease(history));
  EXPECT_GT(history.promises().double_grants, 0);
  EXPECT_GT(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.first("fault.begin", "nemesis", [](const Event& e) { return e["kind"] == "power-loss"; }));
}

TEST(Persistence, EverysecKeepsWhatWasFsyncedBeforeAPowerLoss) {
  // The power goes 1.5 s after the grant: the fsync at the whole second has the key.
  SystemOptions options = two_workers_one_job();
  options.service.persistence = Persistence::kEverySecond;
  options.workers.work = sim::Distribution::constant(5_s);
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.after_event("redis-0", EventKind::kLeaseGrant, 1, 1500_ms,
                        [&nemesis, &system] { nemesis.power_loss(system.service().nodes()[0], 100_ms); });
  });
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
