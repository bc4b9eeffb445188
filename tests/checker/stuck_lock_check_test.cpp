#include "checker/stuck_lock_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields lock_only() { return Fields{{"lock", "L"}}; }

// Hazard H10: `lease: none`, worker-1 crashes holding the lock at 1 s.
HistoryBuilder crashed_without_lease() {
  HistoryBuilder history;
  history.add(ms(10), "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}}, "grant")
      .add(ms(20), "worker-1", "hold.begin", Fields{{"lock", "L"}, {"token", 1}})
      .add(seconds(1), "worker-1", "crash", Fields::object(), "crash");
  return history;
}

TEST(StuckLock, CrashedOwnersLeaseWithoutExpiryBlocksOthersPastTheDefaultMinute) {
  HistoryBuilder history = crashed_without_lease();
  history.add(seconds(61) + 1, "worker-2", "acquire.fail", Fields{{"lock", "L"}, {"reason", "held"}}, "fail");
  const auto found = violations_of(check(history), ViolationKind::kStuckLock);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("crash"),
                                                        history.index_of("fail")}));
  EXPECT_EQ(found[0].detail,
            "stuck_lock at 61.000000001s: lock L is still promised to worker-1, which crashed at 1.000s, and "
            "worker-2's acquire failed (stuck after 60.000s)");
}

TEST(StuckLock, AcquireFailingExactlyStuckAfterTheCrashIsNotYetStuck) {
  HistoryBuilder history = crashed_without_lease();
  history.add(seconds(61), "worker-2", "acquire.fail", lock_only());
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kStuckLock));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStuckLock).empty());
}

TEST(StuckLock, StuckLockIsReportedOncePerStuckLease) {
  HistoryBuilder history = crashed_without_lease();
  history.add(seconds(70), "worker-2", "acquire.fail", lock_only())
      .add(seconds(80), "worker-3", "acquire.fail", lock_only());
  EXPECT_EQ(violations_of(check(history), ViolationKind::kStuckLock).size(), 1U);
}

TEST(StuckLock, RenewalsGoingOnAfterTheHoldEndedKeepTheLockStuckPastTenLeases) {
  HistoryBuilder history;
  const Fields lease{{"lock", "L"}, {"owner", "worker-1"}, {"lease_ns", seconds(1)}};
  history.add(0, "redis-0", "lease.grant", lease).add(ms(1), "worker-1", "hold.begin", lock_only());
  history.add(seconds(2), "worker-1", "hold.end", Fields{{"lock", "L"}, {"reason", "released"}}, "end");
  for (int renewal = 1; renewal <= 19; ++renewal) {  // every 0.5 s up to 11.5 s
    history.add(seconds(2) + ms(500) * renewal, "redis-0", "lease.renew", lease);
  }
  history.add(ms(11999), "worker-2", "acquire.fail", lock_only());  // 9.999 s after: not yet
  history.add(ms(12000), "redis-0", "lease.renew", lease);
  history.add(ms(12001), "worker-2", "acquire.fail", lock_only(), "fail");
  const auto found = violations_of(check(history), ViolationKind::kStuckLock);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{0, history.index_of("end"), history.index_of("fail")}));
}

TEST(StuckLock, StuckAfterOptionOverridesTheDefault) {
  HistoryBuilder history = crashed_without_lease();
  history.add(seconds(7), "worker-2", "acquire.fail", lock_only());
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStuckLock).empty());
  EXPECT_EQ(violations_of(check(history, CheckOptions{seconds(5)}), ViolationKind::kStuckLock).size(), 1U);
}

TEST(StuckLock, RunBeginStuckAfterIsTheScenariosThreshold) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"stuck_after_ns", seconds(5)}});
  const HistoryBuilder crashed = crashed_without_lease();
  for (const EventSpec& event : crashed.events()) {
    history.add(event.time_ns, event.process, event.event, event.fields);
  }
  history.add(seconds(7), "worker-2", "acquire.fail", lock_only());
  EXPECT_EQ(violations_of(check(history), ViolationKind::kStuckLock).size(), 1U);
}

TEST(StuckLock, OwnerThatHoldsTheLockAgainIsUsefulAgain) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-1"}})
      .add(ms(1), "worker-1", "hold.begin", lock_only())
      .add(seconds(1), "worker-1", "hold.end", lock_only())
      .add(seconds(2), "worker-1", "hold.begin", lock_only())
      .add(seconds(100), "worker-2", "acquire.fail", lock_only());
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStuckLock).empty());
}

TEST(StuckLock, CrashedOwnersLeaseThatExpiresIsNotStuck) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"lease_ns", seconds(10)}})
      .add(seconds(1), "worker-1", "crash")
      .add(seconds(10), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}})
      .add(seconds(200), "worker-2", "acquire.fail", lock_only());
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStuckLock).empty());
}

TEST(StuckLock, OwnersOwnFailedAcquireDoesNotCount) {
  HistoryBuilder history = crashed_without_lease();
  history.add(seconds(70), "worker-1", "acquire.fail", lock_only());
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStuckLock).empty());
}

// worker-1 held token 1 and ended its hold at 1 s; at 2 s it is granted the
// lock again (token 2) but waits (WAIT replicas, say) before its hold.begin.
HistoryBuilder granted_but_not_yet_holding() {
  HistoryBuilder history;
  history.add(ms(0), "redis-0", "lease.grant",
              Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}, {"lease_ns", seconds(1)}})
      .add(ms(10), "worker-1", "hold.begin", Fields{{"lock", "L"}, {"token", 1}})
      .add(seconds(1) - 1, "worker-1", "hold.end", lock_only())
      .add(seconds(1), "redis-0", "lease.release",
           Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}, {"by", "worker-1"}})
      .add(seconds(2), "redis-0", "lease.grant",
           Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 2}, {"lease_ns", seconds(30)}}, "regrant");
  return history;
}

TEST(StuckLock, AnOwnerGrantedTheLockAgainIsNotIdleWhileItWaitsToBeginHolding) {
  HistoryBuilder history = granted_but_not_yet_holding();
  history.add(seconds(14), "worker-2", "acquire.fail", Fields{{"lock", "L"}, {"reason", "held"}});
  CheckOptions options;
  options.stuck_after_ns = seconds(5);
  EXPECT_TRUE(violations_of(check(history, options), ViolationKind::kStuckLock).empty());
}

TEST(StuckLock, AnOwnerGrantedAgainThatCrashesBeforeHoldingIsUselessFromTheCrash) {
  HistoryBuilder history = granted_but_not_yet_holding();
  history.add(seconds(3), "worker-1", "crash", Fields::object(), "crash")
      .add(seconds(9), "worker-2", "acquire.fail", Fields{{"lock", "L"}, {"reason", "held"}}, "fail");
  CheckOptions options;
  options.stuck_after_ns = seconds(5);
  const auto found = violations_of(check(history, options), ViolationKind::kStuckLock);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("regrant"), history.index_of("crash"),
                                                        history.index_of("fail")}));
}

}  // namespace
}  // namespace locksim::checker
