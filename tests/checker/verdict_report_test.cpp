#include "checker/verdict_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

HistoryVerdict lost_two_updates() {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"workload", "counter"}});
  for (int write = 1; write <= 3; ++write) {
    history.add(seconds(write), "storage", "write.accept", Fields{{"key", "c"}, {"value", write}, {"writer", "w"}});
  }
  history.add(seconds(4), "storage", "write.reject",
              Fields{{"key", "c"}, {"writer", "w"}, {"reason", "stale-token"}});
  history.add(seconds(5), "run", "run.end", Fields{{"final", {{"c", 1}}}});
  return check(history);
}

TEST(VerdictReport, JsonFollowsTheCliContract) {
  const auto document = nlohmann::json::parse(verdicts_json({lost_two_updates()}));
  EXPECT_FALSE(document["ok"].get<bool>());
  ASSERT_EQ(document["histories"].size(), 1U);
  const auto& history = document["histories"][0];
  EXPECT_EQ(history["file"], "test.jsonl");
  EXPECT_EQ(history["events"], 6);
  EXPECT_TRUE(history["complete"].get<bool>());
  EXPECT_EQ(history["checks_run"], nlohmann::json::array({"lost_update"}));
  EXPECT_EQ(history["checks_skipped"].size(), 7U);
  EXPECT_EQ(history["checks_skipped"][0]["check"], "double_grant");
  ASSERT_EQ(history["violations"].size(), 1U);
  const auto& lost = history["violations"][0];
  EXPECT_EQ(lost["kind"], "lost_update");
  EXPECT_EQ(lost["events"], nlohmann::json::array({5}));
  EXPECT_EQ(lost["t"], seconds(5));
  EXPECT_EQ(lost["count"], 2);
  EXPECT_EQ(history["violation_counts"]["lost_update"], 2);
  EXPECT_TRUE(history["violation_counts"]["stale_write"].is_null());
  EXPECT_EQ(history["violation_counts"].size(), 8U);
  EXPECT_EQ(history["counts"], (nlohmann::json{{"acquisitions", 0},
                                               {"accepted_writes", 3},
                                               {"rejected_writes", 1},
                                               {"late_writes", 0}}));
  EXPECT_EQ(history["rejected_writes_by_reason"]["stale-token"], 1);
}

TEST(VerdictReport, NoHistoriesIsOk) {
  EXPECT_TRUE(nlohmann::json::parse(verdicts_json({}))["ok"].get<bool>());
}

TEST(VerdictReport, TerminalSummaryCountsEachKindAndExplainsTheFirstViolations) {
  const std::string text = verdict_text(lost_two_updates(), 5);
  EXPECT_NE(text.find("test.jsonl: 6 events, 1 violation\n"), std::string::npos) << text;
  // Two updates lost in one run are one incident.
  EXPECT_NE(text.find("  lost_update       2 in 1 incident\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  not checked: double_grant      no lock-service events (lease.grant) in the history\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  - lost_update at 5.000s: 2 updates lost: storage accepted 3 writes to c but its final value "
                      "is 1 [events 5]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 rejected writes (1 stale-token)"), std::string::npos) << text;
}

TEST(VerdictReport, TerminalSummaryShowsOnlyTheFirstFewViolations) {
  HistoryBuilder history;
  for (int worker = 1; worker <= 4; ++worker) {
    history.add(seconds(worker), "worker-" + std::to_string(worker), "hold.begin", Fields{{"lock", "L"}});
  }
  const std::string text = verdict_text(check(history), 2);  // 6 overlapping pairs
  EXPECT_NE(text.find("... and 4 more (--json FILE lists them all)"), std::string::npos) << text;
}

TEST(VerdictReport, SecondsReadWithMillisecondsOrEveryNanosecond) {
  EXPECT_EQ(format_seconds(47'210'000'000), "47.210s");
  EXPECT_EQ(format_seconds(47'210'000'001), "47.210000001s");
  EXPECT_EQ(format_seconds(0), "0.000s");
  EXPECT_EQ(format_seconds(-1'500'000'000), "-1.500s");
}

}  // namespace
}  // namespace locksim::checker
