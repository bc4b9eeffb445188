#include "checker/duplicate_effect_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields charge(const char* writer, const char* job) {
  return Fields{{"key", "charges"}, {"value", 100}, {"writer", writer}, {"job", job}};
}

TEST(DuplicateEffect, SecondAcceptedWriteForTheSameJobIsADuplicateEffect) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"workload", {{"kind", "billing"}, {"customers", 3}}}})
      .add(seconds(1), "storage", "write.accept", charge("worker-1", "customer-7"), "first")
      .add(seconds(2), "storage", "write.accept", charge("worker-2", "customer-8"))
      .add(seconds(3), "storage", "write.accept", charge("worker-2", "customer-7"), "second");
  const auto found = violations_of(check(history), ViolationKind::kDuplicateEffect);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
  EXPECT_EQ(found[0].detail,
            "duplicate_effect at 3.000s: storage accepted another write for job customer-7 from worker-2 (the first "
            "was from worker-1 at 1.000s)");
}

Fields external_charge(const char* writer, std::int64_t job) {
  return Fields{{"job", job}, {"writer", writer}, {"token", 1}};
}

TEST(DuplicateEffect, TwoAcceptedExternalEffectsForOneJobAreADuplicateWhateverTheirTokens) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"workload", {{"kind", "billing"}}}})
      .add(seconds(1), "payments", "effect.accept", external_charge("worker-1", 0), "first")
      .add(seconds(2), "payments", "effect.accept", external_charge("worker-1", 1))
      .add(seconds(3), "payments", "effect.accept", external_charge("worker-2", 0), "second");
  const auto found = violations_of(check(history), ViolationKind::kDuplicateEffect);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("first"), history.index_of("second")}));
  EXPECT_EQ(found[0].detail,
            "duplicate_effect at 3.000s: payments performed another effect for job 0 from worker-2 (the first was "
            "from worker-1 at 1.000s)");
}

TEST(DuplicateEffect, AStorageChargeAndAnExternalChargeForOneJobCountTogether) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"workload", "billing"}})
      .add(seconds(1), "storage", "write.accept", Fields{{"key", "billed"}, {"writer", "worker-1"}, {"job", 4}})
      .add(seconds(2), "payments", "effect.accept", external_charge("worker-2", 4));
  const auto found = violations_of(check(history), ViolationKind::kDuplicateEffect);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].detail.find("(the first was a storage write from worker-1"), std::string::npos) << found[0].detail;
}

TEST(DuplicateEffect, AnExternalRepeatDroppedByItsIdempotencyKeyIsNoEffect) {
  HistoryBuilder history;
  Fields dropped = external_charge("worker-2", 0);
  dropped["request_id"] = "customer-0";
  dropped["reason"] = "duplicate-request";
  Fields first = external_charge("worker-1", 0);
  first["request_id"] = "customer-0";
  history.add(0, "run", "run.begin", Fields{{"workload", "billing"}})
      .add(seconds(1), "payments", "effect.accept", first)
      .add(seconds(2), "payments", "effect.reject", dropped);
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kDuplicateEffect));
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDuplicateEffect), 0);
}

TEST(DuplicateEffect, AnUndeclaredWorkloadWithExternalEffectsIsJudged) {
  HistoryBuilder history;
  history.add(seconds(1), "payments", "effect.accept", external_charge("worker-1", 2))
      .add(seconds(2), "payments", "effect.accept", external_charge("worker-1", 2));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kDuplicateEffect));
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDuplicateEffect), 1);
}

TEST(DuplicateEffect, RejectedRepeatOfAJobIsNoEffect) {
  HistoryBuilder history;
  Fields rejected = charge("worker-2", "customer-7");
  rejected["reason"] = "duplicate-request";
  history.add(seconds(1), "storage", "write.accept", charge("worker-1", "customer-7"))
      .add(seconds(2), "storage", "write.reject", rejected);
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kDuplicateEffect), 0);
  EXPECT_EQ(verdict.counts.rejected_writes_by_reason.at("duplicate-request"), 1);
}

TEST(DuplicateEffect, NumericJobsAreJobsToo) {
  HistoryBuilder history;
  history.add(seconds(1), "storage", "write.accept", Fields{{"key", "k"}, {"writer", "worker-1"}, {"job", 7}})
      .add(seconds(2), "storage", "write.accept", Fields{{"key", "k"}, {"writer", "worker-2"}, {"job", 7}});
  EXPECT_EQ(check(history).violation_count(ViolationKind::kDuplicateEffect), 1);
}

TEST(DuplicateEffect, DeclaredCounterWorkloadSkipsTheCheck) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"workload", "counter"}})
      .add(seconds(1), "storage", "write.accept", charge("worker-1", "job-1"))
      .add(seconds(2), "storage", "write.accept", charge("worker-1", "job-1"));
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(ran(verdict, ViolationKind::kDuplicateEffect));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kDuplicateEffect).empty());
}

TEST(DuplicateEffect, WritesWithoutJobsSkipTheCheck) {
  HistoryBuilder history;
  history.add(seconds(1), "storage", "write.accept", Fields{{"key", "k"}, {"writer", "worker-1"}});
  EXPECT_FALSE(ran(check(history), ViolationKind::kDuplicateEffect));
}

}  // namespace
}  // namespace locksim::checker
