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

}  // namespace
}  // namespace locksim::checker
