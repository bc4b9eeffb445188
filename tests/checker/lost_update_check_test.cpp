#include "checker/lost_update_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

HistoryBuilder counter_history(const Fields& workload, int accepted_writes, const Fields& final_values) {
  HistoryBuilder history;
  Fields begin = Fields::object();
  if (!workload.is_null()) {
    begin["workload"] = workload;
  }
  history.add(0, "run", "run.begin", begin);
  for (int write = 1; write <= accepted_writes; ++write) {
    history.add(seconds(write), "storage", "write.accept",
                Fields{{"key", "counter"}, {"value", write}, {"writer", "worker-1"}});
  }
  history.add(seconds(100), "run", "run.end", Fields{{"final", final_values}}, "end");
  return history;
}

TEST(LostUpdate, FinalValueBelowTheAcceptedWritesIsOneLostUpdateCountingTheDifference) {
  const HistoryBuilder history = counter_history(Fields{{"kind", "counter"}}, 5, Fields{{"counter", 3}});
  const HistoryVerdict verdict = check(history);
  const auto found = violations_of(verdict, ViolationKind::kLostUpdate);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].count, 2);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kLostUpdate), 2);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("end")}));
  EXPECT_EQ(found[0].detail,
            "lost_update at 100.000s: 2 updates lost: storage accepted 5 writes to counter but its final value is 3");
}

TEST(LostUpdate, FinalValueEqualToTheAcceptedWritesIsNoLostUpdate) {
  const HistoryVerdict verdict = check(counter_history(Fields{{"kind", "counter"}}, 5, Fields{{"counter", 5}}));
  EXPECT_EQ(verdict.violation_count(ViolationKind::kLostUpdate), 0);
}

TEST(LostUpdate, UndeclaredWorkloadWithIntegerWritesIsTreatedAsACounter) {
  const HistoryVerdict verdict = check(counter_history(nullptr, 4, Fields{{"counter", 1}}));
  EXPECT_EQ(verdict.violation_count(ViolationKind::kLostUpdate), 3);
}

TEST(LostUpdate, DeclaredBillingWorkloadSkipsTheCheck) {
  const HistoryVerdict verdict = check(counter_history("billing", 4, Fields{{"counter", 1}}));
  EXPECT_FALSE(ran(verdict, ViolationKind::kLostUpdate));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kLostUpdate).empty());
}

TEST(LostUpdate, KeyMissingFromTheFinalValuesCannotBeJudged) {
  const HistoryVerdict verdict = check(counter_history(Fields{{"kind", "counter"}}, 4, Fields{{"note", "x"}}));
  EXPECT_FALSE(ran(verdict, ViolationKind::kLostUpdate));
}

TEST(LostUpdate, HistoryCutOffBeforeRunEndSkipsTheCheck) {
  HistoryBuilder history = counter_history(Fields{{"kind", "counter"}}, 4, Fields{{"counter", 1}});
  history.events().pop_back();
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(ran(verdict, ViolationKind::kLostUpdate));
  ASSERT_FALSE(verdict.notes.empty());
  EXPECT_EQ(verdict.notes.back(), "no run.end: the history is cut off; open holds and leases run to its last event");
}

}  // namespace
}  // namespace locksim::checker
