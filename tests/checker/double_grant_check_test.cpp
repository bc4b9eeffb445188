#include "checker/double_grant_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

TEST(DoubleGrant, GrantToAnotherOwnerWhileThePromiseRunsIsADoubleGrant) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1), "first")
      .add(seconds(5), "redis-0", "lease.grant", lease("worker-2", 2), "second");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
  EXPECT_EQ(found[0].time_ns, seconds(5));
  EXPECT_EQ(found[0].detail,
            "double_grant at 5.000s: redis-0 granted lock L to worker-2 (token 2) while worker-1's lease (token 1), "
            "granted at 0.000s by redis-0, was still promised");
}

TEST(DoubleGrant, GrantAfterTheLeaseExpiredIsNotADoubleGrant) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(seconds(10), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}})
      .add(seconds(10), "redis-0", "lease.grant", lease("worker-2", 2));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kDoubleGrant));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, GrantRecordedBeforeTheExpireAtTheSameNanosecondIsADoubleGrant) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(seconds(10), "redis-0", "lease.grant", lease("worker-2", 2))
      .add(seconds(10), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}});
  EXPECT_EQ(violations_of(check(history), ViolationKind::kDoubleGrant).size(), 1U);
}

TEST(DoubleGrant, ReleasedLeaseEndsThePromise) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(ms(3000), "redis-0", "lease.release",
           Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}, {"by", "worker-1"}})
      .add(ms(3000) + 1, "redis-0", "lease.grant", lease("worker-2", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, LeaseRenewedJustInTimeIsPromisedUntilItsOwnExpire) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(seconds(10) - 1, "redis-0", "lease.renew", lease("worker-1", 1))
      .add(seconds(20) - 1, "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}})
      .add(seconds(20), "redis-0", "lease.grant", lease("worker-2", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, LostLeaseStaysPromisedUntilItsLastRenewalPlusTheLease) {
  // A failover forgets worker-1's lease (renewed at 4 s for 10 s): it stays
  // promised until 14 s, so the new primary's grant at 13.999 s overlaps it.
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1), "grant")
      .add(seconds(4), "redis-0", "lease.renew", lease("worker-1", 1))
      .add(seconds(5), "redis-0", "lease.lost", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"reason", "failover"}})
      .add(seconds(14) - 1, "redis-1", "lease.grant", lease("worker-2", 2), "overlapping");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("overlapping")}));
}

TEST(DoubleGrant, GrantAtTheEndOfALostLeasesPromiseIsNotADoubleGrant) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(seconds(4), "redis-0", "lease.renew", lease("worker-1", 1))
      .add(seconds(5), "redis-0", "lease.lost", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"reason", "failover"}})
      .add(seconds(14), "redis-1", "lease.grant", lease("worker-2", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, OverwrittenLeaseStaysPromisedLikeAnyLostLease) {
  // Hazard H9: a plain SET replaced worker-1's live key at 2 s; its promise
  // still runs to 0 s + 10 s.
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1), "grant")
      .add(seconds(2), "redis-0", "lease.lost",
           Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}, {"reason", "overwritten"}})
      .add(seconds(3), "redis-0", "lease.grant", lease("worker-2", 2), "overlapping")
      .add(seconds(4), "redis-0", "lease.release",
           Fields{{"lock", "L"}, {"owner", "worker-2"}, {"token", 2}, {"by", "worker-2"}})
      .add(seconds(10), "redis-0", "lease.grant", lease("worker-3", 3));
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("overlapping")}));
}

// worker-1's lease (granted by redis-0 at 0 s for 10 s) is lost in a failover
// at 5 s; the promoted replica redis-1 adopts it at 6 s for 10 s more.
HistoryBuilder adopted_history() {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1), "grant")
      .add(seconds(5), "redis-0", "lease.lost",
           Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}, {"reason", "failover"}})
      .add(seconds(6), "redis-1", "replica.promote")
      .add(seconds(6), "redis-1", "lease.adopt", lease("worker-1", 1), "adopt");
  return history;
}

TEST(DoubleGrant, AdoptedLeaseThatExpiresOnTheNewPrimaryIsNoDoubleGrantWithItself) {
  HistoryBuilder history = adopted_history();
  history.add(seconds(16), "redis-1", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}})
      .add(seconds(16), "redis-1", "lease.grant", lease("worker-1", 2))
      .add(seconds(20), "redis-1", "lease.renew", lease("worker-1", 2));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kDoubleGrant));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, GrantToAnotherOwnerAfterTheAdoptedLeaseExpiredIsNoDoubleGrant) {
  // The lost lease alone would have been promised until 10 s; adopted, it ends at the new primary's expire.
  HistoryBuilder history = adopted_history();
  history.add(seconds(16), "redis-1", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}})
      .add(seconds(16), "redis-1", "lease.grant", lease("worker-2", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, GrantToAnotherOwnerWhileTheAdoptedLeaseRunsIsADoubleGrant) {
  // Past the lost lease's own end (10 s) but within the adopted one (16 s).
  HistoryBuilder history = adopted_history();
  history.add(seconds(12), "redis-1", "lease.grant", lease("worker-2", 2), "second");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("second")}));
}

TEST(DoubleGrant, AdoptOfALeaseTheOldPrimaryStillRunsMovesItWithoutASecondGain) {
  // No lease.lost: the adopt moves the running promise; the old primary's later
  // expire no longer names it, and the adopter's own expire ends it once.
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1), "grant")
      .add(seconds(6), "redis-1", "lease.adopt", lease("worker-1", 1))
      .add(seconds(10), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}})
      .add(seconds(12), "redis-1", "lease.grant", lease("worker-2", 2), "second")
      .add(seconds(13), "redis-1", "lease.release",
           Fields{{"lock", "L"}, {"owner", "worker-2"}, {"token", 2}, {"by", "worker-2"}})
      .add(seconds(16), "redis-1", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}})
      .add(seconds(17), "redis-1", "lease.grant", lease("worker-3", 3));
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);  // worker-2 at 12 s only; worker-3 comes after worker-1's promise ended
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("second")}));
}

TEST(DoubleGrant, AdoptThatMatchesNoLeaseBeginsAPromiseAtTheAdopter) {
  HistoryBuilder history;
  history.add(seconds(1), "redis-1", "lease.adopt", lease("worker-1", 7), "adopt")
      .add(seconds(5), "redis-1", "lease.grant", lease("worker-2", 8), "second");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("adopt"), history.index_of("second")}));
}

TEST(DoubleGrant, OpaqueStringTokensMatchTheirLeaseByEquality) {
  const auto uuid_lease = [](const char* owner, const char* token) {
    return Fields{{"lock", "L"}, {"owner", owner}, {"token", token}, {"lease_ns", seconds(10)}};
  };
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", uuid_lease("worker-1", "0b1e6c52-8f0a-4a8e-9d6c-2f3c5a1e7b90"), "first")
      .add(seconds(1), "redis-0", "lease.grant", uuid_lease("worker-1", "5d2f9a7e-1c3b-4e6f-8a0d-7b9c1e2f3a4d"))
      // Ends the second lease only: the first is still promised at 3 s.
      .add(seconds(2), "redis-0", "lease.release",
           Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", "5d2f9a7e-1c3b-4e6f-8a0d-7b9c1e2f3a4d"},
                  {"by", "worker-1"}})
      .add(seconds(3), "redis-0", "lease.grant", uuid_lease("worker-2", "9e8d7c6b-5a4f-4e3d-a2c1-b0a9f8e7d6c5"),
           "second");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
  EXPECT_NE(found[0].detail.find("(token 0b1e6c52-8f0a-4a8e-9d6c-2f3c5a1e7b90)"), std::string::npos) << found[0].detail;
}

HistoryBuilder redlock_history() {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"service", {{"kind", "redlock"}, {"instances", 5}, {"quorum", 3}}}});
  history.add(ms(1), "redis-0", "lease.grant", lease("worker-1", 1))
      .add(ms(2), "redis-1", "lease.grant", lease("worker-1", 1))
      .add(ms(3), "redis-2", "lease.grant", lease("worker-1", 1), "quorum-1");
  return history;
}

TEST(DoubleGrant, RedlockInstanceThatRestartsEmptyLetsASecondQuorumOverlap) {
  // Hazard H6: redis-2 forgets worker-1's key; worker-2 then wins redis-2..4.
  HistoryBuilder history = redlock_history();
  history.add(ms(1100), "redis-2", "lease.lost", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"reason", "restart"}})
      .add(ms(2000), "redis-2", "lease.grant", lease("worker-2", 1))
      .add(ms(2001), "redis-3", "lease.grant", lease("worker-2", 1))
      .add(ms(2002), "redis-4", "lease.grant", lease("worker-2", 1), "quorum-2");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("quorum-1"), history.index_of("quorum-2")}));
  EXPECT_EQ(found[0].detail,
            "double_grant at 2.002s: worker-2 reached a quorum (3 instances) for lock L with redis-4's promise while "
            "worker-1 still had one (since 0.003s)");
}

TEST(DoubleGrant, RedlockInstanceWhoseOwnClockExpiredTheKeyIsNoDoubleGrant) {
  // Hazard H5: every instance followed its own clock, so no promise overlaps.
  HistoryBuilder history = redlock_history();
  history.add(ms(1100), "redis-2", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}})
      .add(ms(2000), "redis-2", "lease.grant", lease("worker-2", 1))
      .add(ms(2001), "redis-3", "lease.grant", lease("worker-2", 1))
      .add(ms(2002), "redis-4", "lease.grant", lease("worker-2", 1));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, RedlockMinorityGrantToAnotherOwnerIsNoDoubleGrant) {
  HistoryBuilder history = redlock_history();
  history.add(ms(2000), "redis-3", "lease.grant", lease("worker-2", 1))
      .add(ms(2001), "redis-4", "lease.grant", lease("worker-2", 1));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, RedlockWithoutADeclaredQuorumUsesTheMajorityOfItsInstances) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"service", {{"kind", "redlock"}, {"instances", 5}}}});
  history.add(ms(1), "redis-0", "lease.grant", lease("worker-1", 1))
      .add(ms(2), "redis-1", "lease.grant", lease("worker-1", 1))
      .add(ms(3), "redis-2", "lease.grant", lease("worker-2", 1))
      .add(ms(4), "redis-3", "lease.grant", lease("worker-2", 1));
  // Two instances each are no majority of five: nobody holds the lock.
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, HistoryWithoutServiceEventsSkipsTheCheck) {
  HistoryBuilder history;
  history.add(0, "worker-1", "acquire.ok", Fields{{"lock", "L"}, {"token", 1}});
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(ran(verdict, ViolationKind::kDoubleGrant));
  ASSERT_FALSE(verdict.checks_skipped.empty());
  EXPECT_EQ(verdict.checks_skipped[0].check, ViolationKind::kDoubleGrant);
  EXPECT_EQ(verdict.checks_skipped[0].why, "no lock-service events (lease.grant) in the history");
}

// --- A crashed instance's promises end at their deadlines ---------------------------

TEST(DoubleGrant, APromiseOfACrashedPrimaryEndsAtItsDeadlineSoALateFailoversGrantIsNoDoubleGrant) {
  // The crash-then-late-failover: redis-0 grants a 10 s lease and
  // crashes at 0.5 s; Sentinel promotes redis-1 at 31.5 s, which grants anew.
  HistoryBuilder history;
  history.add(ms(1), "redis-0", "lease.grant", lease("worker-1", 1))
      .add(ms(500), "redis-0", "crash")
      .add(ms(31'500), "redis-1", "replica.promote")
      .add(ms(31'580), "redis-1", "lease.grant", lease("worker-2", 2));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kDoubleGrant));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, APromiseOfACrashedPrimaryStillRunsUntilItsDeadline) {
  HistoryBuilder history;
  history.add(ms(1), "redis-0", "lease.grant", lease("worker-1", 1), "grant")
      .add(ms(500), "redis-0", "crash")
      .add(ms(9'000), "redis-1", "replica.promote")
      .add(ms(9'100), "redis-1", "lease.grant", lease("worker-2", 2), "overlapping");  // before 10.001 s
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("overlapping")}));
}

TEST(DoubleGrant, ARestartedInstanceThatExpiresTheLeaseItCrashedWithEndsItThen) {
  // Persistence kept the key: the restarted instance expires it at 6 s on its
  // own clock, earlier than the 10 s deadline the crash left.
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(seconds(1), "redis-0", "crash")
      .add(seconds(2), "redis-0", "restart")
      .add(seconds(6), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}})
      .add(seconds(7), "redis-0", "lease.grant", lease("worker-2", 2));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kDoubleGrant).empty());
}

TEST(DoubleGrant, ARestartedInstanceThatRenewsTheLeaseItCrashedWithPromisesItAgain) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1), "grant")
      .add(seconds(1), "redis-0", "crash")
      .add(seconds(2), "redis-0", "restart")
      .add(seconds(8), "redis-0", "lease.renew", lease("worker-1", 1))  // now to 18 s
      .add(seconds(12), "redis-1", "lease.grant", lease("worker-2", 2), "overlapping");
  const auto found = violations_of(check(history), ViolationKind::kDoubleGrant);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("overlapping")}));
}

}  // namespace
}  // namespace locksim::checker
