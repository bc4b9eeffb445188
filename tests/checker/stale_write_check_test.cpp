#include "checker/stale_write_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields lease(const char* owner, std::int64_t token) {
  return Fields{{"lock", "orders"}, {"owner", owner}, {"token", token}, {"lease_ns", seconds(10)}};
}
Fields write(const char* writer, std::int64_t token, std::int64_t value) {
  return Fields{{"key", "qty"}, {"value", value}, {"writer", writer}, {"token", token}};
}

// worker-1 is granted token 3; its lease expires; worker-2 is granted token 4 at 45.002 s.
HistoryBuilder superseded_history() {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", lease("worker-1", 3))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(45002), "redis-0", "lease.grant", lease("worker-2", 4), "newer");
  return history;
}

TEST(StaleWrite, WriteAcceptedAfterAnotherOwnersGrantIsStale) {
  HistoryBuilder history = superseded_history();
  history.add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6), "stale");
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.stale_write_mode, "white-box");
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("newer"), history.index_of("stale")}));
  EXPECT_EQ(found[0].time_ns, ms(47210));
  EXPECT_EQ(found[0].detail,
            "stale_write at 47.210s: storage accepted qty=6 from worker-1 (token 3) after worker-2 was granted lock "
            "orders (token 4) at 45.002s");
}

TEST(StaleWrite, WriteAcceptedOneNanosecondBeforeTheNewerGrantIsNotStale) {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", lease("worker-1", 3))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(45002) - 1, "storage", "write.accept", write("worker-1", 3, 6))
      .add(ms(45002), "redis-0", "lease.grant", lease("worker-2", 4));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kStaleWrite));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
}

TEST(StaleWrite, WriteRecordedBeforeTheGrantAtTheSameNanosecondIsNotStale) {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", lease("worker-1", 3))
      .add(ms(45002), "storage", "write.accept", write("worker-1", 3, 6))
      .add(ms(45002), "redis-0", "lease.grant", lease("worker-2", 4));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
}

TEST(StaleWrite, HolderWhoseLeaseExpiredButNobodyElseAcquiredIsNotStale) {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", lease("worker-1", 3))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(20000), "storage", "write.accept", write("worker-1", 3, 6));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
}

TEST(StaleWrite, TheNewOwnersOwnWritesAreNotStale) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46000), "storage", "write.accept", write("worker-2", 4, 4));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
}

TEST(StaleWrite, WithoutServiceEventsAnotherWorkersHigherAcquireTokenMakesAWriteStale) {
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", 3}})
      .add(ms(45002), "worker-2", "acquire.ok", Fields{{"lock", "orders"}, {"token", 4}}, "newer")
      .add(ms(47210), "storage", "write.accept", Fields{{"key", "qty"}, {"value", 6}, {"writer", "worker-1"}}, "stale");
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.stale_write_mode, "black-box");
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("newer"), history.index_of("stale")}));
  EXPECT_EQ(found[0].detail,
            "stale_write at 47.210s: storage accepted qty=6 from worker-1 (token 3) after worker-2 acquired lock "
            "orders (token 4) at 45.002s");
}

TEST(StaleWrite, WithoutServiceEventsAWriteCarryingTheHighestTokenIsNotStale) {
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", 3}})
      .add(ms(2000), "worker-2", "acquire.ok", Fields{{"lock", "orders"}, {"token", 4}})
      .add(ms(3000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", 5}})
      .add(ms(4000), "storage", "write.accept", Fields{{"key", "qty"}, {"writer", "worker-1"}, {"token", 5}});
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
}

TEST(StaleWrite, WithoutServiceEventsOrTokensTheCheckIsSkipped) {
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}})
      .add(ms(2000), "storage", "write.accept", Fields{{"key", "qty"}, {"writer", "worker-1"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(ran(verdict, ViolationKind::kStaleWrite));
  EXPECT_TRUE(verdict.stale_write_mode.empty());
}

TEST(StaleWrite, RedlockWriteIsStaleOnlyOnceAnotherOwnerHasAQuorum) {
  HistoryBuilder history;
  const auto grant = [](const char* owner) {
    return Fields{{"lock", "orders"}, {"owner", owner}, {"lease_ns", seconds(10)}};
  };
  history.add(0, "run", "run.begin", Fields{{"service", {{"kind", "redlock"}, {"instances", 3}, {"quorum", 2}}}})
      .add(ms(1), "redis-0", "lease.grant", grant("worker-1"))
      .add(ms(2), "redis-1", "lease.grant", grant("worker-1"))
      .add(ms(20000), "redis-2", "lease.grant", grant("worker-2"))
      .add(ms(20001), "storage", "write.accept", write("worker-1", 1, 1))
      .add(ms(20002), "redis-0", "lease.grant", grant("worker-2"), "quorum")
      .add(ms(20003), "storage", "write.accept", write("worker-1", 1, 2), "stale");
  const auto found = violations_of(check(history), ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("quorum"), history.index_of("stale")}));
}

}  // namespace
}  // namespace locksim::checker
