#include "checker/token_order_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields grant_to(const char* owner, std::int64_t token) {
  return Fields{{"lock", "L"}, {"owner", owner}, {"token", token}, {"lease_ns", seconds(10)}};
}
Fields expire_of(const char* owner, std::int64_t token) {
  return Fields{{"lock", "L"}, {"owner", owner}, {"token", token}};
}
Fields acquired(std::int64_t token) { return Fields{{"lock", "L"}, {"token", token}, {"lease_ns", seconds(10)}}; }
const Fields kLock{{"lock", "L"}};

TEST(TokenOrder, TokensThatGrowFromGrantToGrantAreInOrder) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", grant_to("worker-1", 1))
      .add(seconds(10), "redis-0", "lease.expire", expire_of("worker-1", 1))
      .add(seconds(11), "redis-0", "lease.grant", grant_to("worker-2", 2))
      .add(seconds(12), "redis-0", "lease.grant", grant_to("worker-2", 2));  // a re-grant to the same owner
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kTokenOrder));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kTokenOrder).empty());
}

TEST(TokenOrder, TheSameTokenGrantedToAnotherOwnerElevenSecondsLaterIsFoundWithoutStorageEvents) {
  // No overlap, no storage: no other check sees anything wrong.
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", grant_to("worker-1", 7), "first")
      .add(seconds(10), "redis-0", "lease.expire", expire_of("worker-1", 7))
      .add(seconds(11), "redis-0", "lease.grant", grant_to("worker-2", 7), "again");
  const HistoryVerdict verdict = check(history);
  const auto found = violations_of(verdict, ViolationKind::kTokenOrder);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("again")}));
  EXPECT_EQ(found[0].detail, "token_order at 11.000s: redis-0 granted lock L to worker-2 with token 7, after it granted "
                             "token 7 to worker-1 at 0.000s");
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDoubleGrant), 0);
}

TEST(TokenOrder, ACounterThatRestartedLowIsOneIncidentUntilItPassesItsHighest) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", grant_to("worker-1", 5))
      .add(seconds(10), "redis-0", "lease.expire", expire_of("worker-1", 5))
      .add(seconds(11), "redis-0", "lease.grant", grant_to("worker-2", 1))  // restarted without persistence
      .add(seconds(21), "redis-0", "lease.expire", expire_of("worker-2", 1))
      .add(seconds(22), "redis-0", "lease.grant", grant_to("worker-1", 2))
      .add(seconds(32), "redis-0", "lease.expire", expire_of("worker-1", 2))
      .add(seconds(33), "redis-0", "lease.grant", grant_to("worker-2", 6))  // above 5 again
      .add(seconds(43), "redis-0", "lease.expire", expire_of("worker-2", 6))
      .add(seconds(44), "redis-0", "lease.grant", grant_to("worker-1", 3));  // below 6: a new incident
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kTokenOrder), 3);
  EXPECT_EQ(verdict.incident_count(ViolationKind::kTokenOrder), 2);
}

TEST(TokenOrder, RedlockInstancesCountTheirTokensApart) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin",
              Fields{{"scenario", "t"}, {"seed", 1}, {"fencing", true}, {"version", "t"},
                     {"service", {{"kind", "redlock"}, {"instances", 3}, {"quorum", 2}}}})
      .add(ms(1), "redis-0", "lease.grant", grant_to("worker-1", 9))
      .add(ms(1), "redis-1", "lease.grant", grant_to("worker-1", 2))
      .add(seconds(11), "redis-0", "lease.expire", expire_of("worker-1", 9))
      .add(seconds(11), "redis-1", "lease.expire", expire_of("worker-1", 2))
      .add(seconds(12), "redis-1", "lease.grant", grant_to("worker-2", 3))  // above redis-1's own 2
      .add(seconds(12), "redis-2", "lease.grant", grant_to("worker-2", 1));
  EXPECT_EQ(check(history).violation_count(ViolationKind::kTokenOrder), 0);
}

TEST(TokenOrder, BlackBoxATokenAcquiredByTwoOwnersIsAViolation) {
  HistoryBuilder history;
  history.add(0, "worker-1", "acquire.invoke", kLock)
      .add(ms(1), "worker-1", "acquire.ok", acquired(4), "first")
      .add(seconds(12), "worker-2", "acquire.invoke", kLock)
      .add(seconds(12) + ms(1), "worker-2", "acquire.ok", acquired(4), "second");
  const auto found = violations_of(check(history), ViolationKind::kTokenOrder);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
}

TEST(TokenOrder, BlackBoxAnAcquisitionBegunAfterAnotherOwnersMustCarryAHigherToken) {
  HistoryBuilder history;
  history.add(0, "worker-1", "acquire.invoke", kLock)
      .add(ms(1), "worker-1", "acquire.ok", acquired(8))
      .add(seconds(12), "worker-2", "acquire.invoke", kLock)  // after worker-1's acquire.ok
      .add(seconds(12) + ms(1), "worker-2", "acquire.ok", acquired(5));
  EXPECT_EQ(check(history).violation_count(ViolationKind::kTokenOrder), 1);
}

TEST(TokenOrder, BlackBoxTwoConcurrentAcquisitionsMayCompleteOutOfOrder) {
  HistoryBuilder history;
  history.add(0, "worker-2", "acquire.invoke", kLock)  // before worker-1's acquire.ok: concurrent
      .add(ms(1), "worker-1", "acquire.invoke", kLock)
      .add(ms(2), "worker-1", "acquire.ok", acquired(8))
      .add(ms(3), "worker-2", "acquire.ok", acquired(5));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kTokenOrder));
  EXPECT_EQ(verdict.violation_count(ViolationKind::kTokenOrder), 0);
}

TEST(TokenOrder, OpaqueStringTokensAreJudgedForReuseOnly) {
  const auto with_text = [](const char* token) {
    return Fields{{"lock", "L"}, {"token", token}, {"lease_ns", seconds(10)}};
  };
  HistoryBuilder reused;
  reused.add(0, "worker-1", "acquire.invoke", kLock)
      .add(ms(1), "worker-1", "acquire.ok", with_text("b1c2"))
      .add(seconds(12), "worker-2", "acquire.invoke", kLock)
      .add(seconds(12) + ms(1), "worker-2", "acquire.ok", with_text("b1c2"));
  EXPECT_EQ(check(reused).violation_count(ViolationKind::kTokenOrder), 1);
  HistoryBuilder distinct;
  distinct.add(0, "worker-1", "acquire.invoke", kLock)
      .add(ms(1), "worker-1", "acquire.ok", with_text("zz"))
      .add(seconds(12), "worker-2", "acquire.invoke", kLock)
      .add(seconds(12) + ms(1), "worker-2", "acquire.ok", with_text("aa"));  // "lower", but strings have no order
  EXPECT_EQ(check(distinct).violation_count(ViolationKind::kTokenOrder), 0);
}

TEST(TokenOrder, AnAcquisitionFoundWhiteBoxIsNotReportedAgainBlackBox) {
  HistoryBuilder history;
  history.add(0, "worker-1", "acquire.invoke", kLock)
      .add(ms(1), "redis-0", "lease.grant", grant_to("worker-1", 7))
      .add(ms(2), "worker-1", "acquire.ok", acquired(7))
      .add(seconds(11), "redis-0", "lease.expire", expire_of("worker-1", 7))
      .add(seconds(12), "worker-2", "acquire.invoke", kLock)
      .add(seconds(12) + ms(1), "redis-0", "lease.grant", grant_to("worker-2", 7))
      .add(seconds(12) + ms(2), "worker-2", "acquire.ok", acquired(7));
  EXPECT_EQ(check(history).violation_count(ViolationKind::kTokenOrder), 1);
}

TEST(TokenOrder, AHistoryWithoutTokensSkipsTheCheck) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", kLock);
  EXPECT_FALSE(ran(check(history), ViolationKind::kTokenOrder));
}

}  // namespace
}  // namespace locksim::checker
