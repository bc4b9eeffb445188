#include "checker/double_holder_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields on(const char* lock, std::int64_t token) { return Fields{{"lock", lock}, {"token", token}}; }

TEST(DoubleHolder, OverlappingHoldsOfTwoWorkersAreADoubleHolder) {
  HistoryBuilder history;
  history.add(ms(3), "worker-1", "hold.begin", on("L", 3), "first")
      .add(ms(10502), "worker-2", "hold.begin", on("L", 4), "second")
      .add(ms(15000), "worker-1", "hold.end", Fields{{"lock", "L"}, {"reason", "released"}})
      .add(ms(15001), "worker-2", "hold.end", Fields{{"lock", "L"}, {"reason", "released"}});
  const auto found = violations_of(check(history), ViolationKind::kDoubleHolder);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
  EXPECT_EQ(found[0].time_ns, ms(10502));
  EXPECT_EQ(found[0].detail,
            "double_holder at 10.502s: worker-2 began holding lock L (token 4) while worker-1 had held it since "
            "0.003s (token 3)");
}

TEST(DoubleHolder, HoldBeginningOneNanosecondAfterTheOtherEndedIsNotADoubleHolder) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", on("L", 1))
      .add(seconds(5), "worker-1", "hold.end", Fields{{"lock", "L"}, {"reason", "released"}})
      .add(seconds(5) + 1, "worker-2", "hold.begin", on("L", 2));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kDoubleHolder));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kDoubleHolder).empty());
}

TEST(DoubleHolder, HoldWithoutEndRunsToTheWorkersCrash) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", on("L", 1))
      .add(seconds(2), "worker-1", "crash")
      .add(seconds(12), "worker-2", "hold.begin", on("L", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleHolder).empty());
}

TEST(DoubleHolder, HoldWithoutEndOrCrashOverlapsEveryLaterHold) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", on("L", 1))
      .add(seconds(60), "worker-2", "hold.begin", on("L", 2))
      .add(seconds(61), "run", "run.end", Fields{{"final", Fields::object()}});
  EXPECT_EQ(violations_of(check(history), ViolationKind::kDoubleHolder).size(), 1U);
}

TEST(DoubleHolder, SameWorkerBeginningTwiceIsNotADoubleHolder) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", on("L", 1)).add(seconds(1), "worker-1", "hold.begin", on("L", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleHolder).empty());
}

TEST(DoubleHolder, HoldsOnDifferentLocksDoNotConflict) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", on("A", 1)).add(seconds(1), "worker-2", "hold.begin", on("B", 1));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleHolder).empty());
}

TEST(DoubleHolder, ThreeConcurrentHoldersAreThreeOverlappingPairs) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", on("L", 1))
      .add(seconds(1), "worker-2", "hold.begin", on("L", 2))
      .add(seconds(2), "worker-3", "hold.begin", on("L", 3));
  EXPECT_EQ(violations_of(check(history), ViolationKind::kDoubleHolder).size(), 3U);
}

TEST(DoubleHolder, HistoryWithoutHoldEventsSkipsTheCheck) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"lease_ns", seconds(1)}});
  EXPECT_FALSE(ran(check(history), ViolationKind::kDoubleHolder));
}


// --- A hold without hold.end ends with its lease ----------------------------------

Fields acquired_with_lease(const char* lock, std::int64_t token, std::int64_t lease_ns) {
  return Fields{{"lock", lock}, {"token", token}, {"lease_ns", lease_ns}};
}

// worker-1 acquires at 0 (invoke) with a 10 s lease and begins holding.
HistoryBuilder worker_1_holding_with_a_10s_lease() {
  HistoryBuilder history;
  history.add(0, "worker-1", "acquire.invoke", Fields{{"lock", "L"}})
      .add(ms(2), "worker-1", "acquire.ok", acquired_with_lease("L", 1, seconds(10)))
      .add(ms(2), "worker-1", "hold.begin", on("L", 1), "first");
  return history;
}

// ... and never records hold.end; worker-2 begins holding at 12 s.
HistoryBuilder hand_over_after_the_lease() {
  HistoryBuilder history = worker_1_holding_with_a_10s_lease();
  history.add(seconds(12), "worker-2", "acquire.invoke", Fields{{"lock", "L"}})
      .add(seconds(12) + ms(1), "worker-2", "acquire.ok", acquired_with_lease("L", 2, seconds(10)))
      .add(seconds(12) + ms(1), "worker-2", "hold.begin", on("L", 2), "second");
  return history;
}

TEST(DoubleHolder, AHoldWithoutEndEndsAtItsAcquireInvokePlusTheLease) {
  HistoryBuilder history = hand_over_after_the_lease();
  history.add(seconds(13), "worker-2", "hold.end", Fields{{"lock", "L"}, {"reason", "released"}})
      .add(seconds(14), "run", "run.end", Fields{{"final", Fields::object()}});
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDoubleHolder), 0);
  ASSERT_EQ(verdict.notes.size(), 1U);
  EXPECT_EQ(verdict.notes[0], "1 hold end taken from the lease: a hold without hold.end ends at its last acquire or "
                              "renew invoke plus that call's lease_ns");
  EXPECT_TRUE(verdict.complete);
}

TEST(DoubleHolder, AHoldEndAfterTheOtherHoldBeganShowsTheWorkerHeldOn) {
  HistoryBuilder history = hand_over_after_the_lease();
  history.add(seconds(15), "worker-1", "hold.end", Fields{{"lock", "L"}, {"reason", "expired"}}, "late end");
  const auto found = violations_of(check(history), ViolationKind::kDoubleHolder);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
  EXPECT_EQ(found[0].time_ns, seconds(12) + ms(1)) << "it happened at the hold.begin, not where it was confirmed";
  EXPECT_EQ(found[0].detected_at, history.index_of("late end"));
}

TEST(DoubleHolder, ARenewalWhoseLeaseReachesPastTheOtherHoldBeginIsAnOverlap) {
  HistoryBuilder history = worker_1_holding_with_a_10s_lease();
  history.add(seconds(12), "worker-2", "hold.begin", on("L", 2))
      // worker-1 renews at 13 s (a late renewal that still succeeded): its lease now runs to 23 s.
      .add(seconds(13), "worker-1", "renew.invoke", on("L", 1))
      .add(seconds(13) + ms(1), "worker-1", "renew.ok", Fields{{"token", 1}, {"lease_ns", seconds(10)}});
  EXPECT_EQ(check(history).violation_count(ViolationKind::kDoubleHolder), 1);
}

TEST(DoubleHolder, ARenewalEndsTheHoldAtTheRenewInvokePlusItsLease) {
  HistoryBuilder history = worker_1_holding_with_a_10s_lease();
  history.add(seconds(5), "worker-1", "renew.invoke", on("L", 1))
      .add(seconds(5) + ms(1), "worker-1", "renew.ok", Fields{{"token", 1}, {"lease_ns", seconds(10)}})
      .add(seconds(14), "worker-2", "hold.begin", on("L", 2))   // before 15 s: overlaps
      .add(seconds(16), "worker-3", "hold.begin", on("L", 3));  // after: overlaps worker-2 only
  EXPECT_EQ(check(history).violation_count(ViolationKind::kDoubleHolder), 2);
}

TEST(DoubleHolder, ACrashAfterTheLeaseRanOutEndsTheHoldAtTheLease) {
  HistoryBuilder history = hand_over_after_the_lease();
  history.add(seconds(20), "worker-1", "crash");
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDoubleHolder), 0);
  EXPECT_FALSE(verdict.notes.empty());
}

TEST(DoubleHolder, WithoutALeaseInTheCallsTheHoldRunsToTheEndOfTheHistory) {
  HistoryBuilder history;
  history.add(0, "worker-1", "acquire.invoke", Fields{{"lock", "L"}})
      .add(ms(2), "worker-1", "acquire.ok", on("L", 1))  // no lease_ns: no expiry
      .add(ms(2), "worker-1", "hold.begin", on("L", 1))
      .add(seconds(60), "worker-2", "hold.begin", on("L", 2));
  EXPECT_EQ(check(history).violation_count(ViolationKind::kDoubleHolder), 1);
}

TEST(DoubleHolder, PairsConfirmedLateStillShareTheIncidentOfTheirBusyPeriod) {
  HistoryBuilder history = hand_over_after_the_lease();
  history.add(seconds(13), "worker-2", "hold.end", Fields{{"lock", "L"}, {"reason", "released"}})
      .add(seconds(14), "worker-3", "hold.begin", on("L", 3))
      .add(seconds(15), "worker-1", "hold.end", Fields{{"lock", "L"}, {"reason", "expired"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDoubleHolder), 2);
  EXPECT_EQ(verdict.incident_count(ViolationKind::kDoubleHolder), 1) << "worker-1 held throughout";
}

}  // namespace
}  // namespace locksim::checker
