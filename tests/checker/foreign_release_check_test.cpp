#include "checker/foreign_release_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

HistoryBuilder granted_to_worker_2() {
  HistoryBuilder history;
  history.add(ms(5000), "redis-0", "lease.grant",
              Fields{{"lock", "L"}, {"owner", "worker-2"}, {"token", 8}, {"lease_ns", seconds(5)}}, "grant");
  return history;
}

TEST(ForeignRelease, DeleteAtAnotherWorkersRequestIsAForeignRelease) {
  HistoryBuilder history = granted_to_worker_2();
  history.add(ms(8000), "redis-0", "lease.release", Fields{{"lock", "L"}, {"owner", "worker-2"}, {"by", "worker-1"}},
              "release");
  const auto found = violations_of(check(history), ViolationKind::kForeignRelease);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("grant"), history.index_of("release")}));
  EXPECT_EQ(found[0].detail,
            "foreign_release at 8.000s: redis-0 deleted worker-2's lease on lock L (token 8), granted at 5.000s, at "
            "worker-1's request");
}

TEST(ForeignRelease, ReleaseByTheOwnerIsNotAForeignRelease) {
  HistoryBuilder history = granted_to_worker_2();
  history.add(ms(8000), "redis-0", "lease.release", Fields{{"lock", "L"}, {"owner", "worker-2"}, {"by", "worker-2"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kForeignRelease));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kForeignRelease).empty());
}

TEST(ForeignRelease, ForeignReleaseEndsThePromiseSoTheNextGrantIsNoDoubleGrant) {
  HistoryBuilder history = granted_to_worker_2();
  history.add(ms(8000), "redis-0", "lease.release", Fields{{"lock", "L"}, {"owner", "worker-2"}, {"by", "worker-1"}})
      .add(ms(8001), "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-3"}, {"lease_ns", seconds(5)}});
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations_of(verdict, ViolationKind::kForeignRelease).size(), 1U);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kDoubleGrant).empty());
}

TEST(ForeignRelease, HistoryWithoutServiceEventsSkipsTheCheck) {
  HistoryBuilder history;
  history.add(0, "worker-1", "release.invoke", Fields{{"lock", "L"}, {"token", 1}});
  EXPECT_FALSE(ran(check(history), ViolationKind::kForeignRelease));
}

}  // namespace
}  // namespace locksim::checker
