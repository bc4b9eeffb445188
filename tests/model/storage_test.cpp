// Storage records every read that reaches it (docs/history-format.md): read.accept,
// with a token only when reads are fenced, and read.reject for a refused one.
#include <gtest/gtest.h>

#include "model_test_support.h"

namespace locksim::model {
namespace {

using testing::Event;
using testing::History;
using testing::run_system;
using testing::two_workers_one_job;
using testing::with_fencing;

TEST(StorageReads, AnUnfencedReadIsRecordedAsAcceptedWithoutAToken) {
  SystemOptions options = two_workers_one_job();
  options.workload = CounterWorkload{"qty", 3};
  const History history = run_system(options);
  const std::vector<Event> accepted = history.all("read.accept", "storage");
  ASSERT_EQ(accepted.size(), history.count("read.ok"));
  EXPECT_EQ(accepted.size(), 6u);
  for (const Event& read : accepted) {
    EXPECT_EQ(read["key"], "qty");
    EXPECT_FALSE(read.contains("token"));
  }
  EXPECT_TRUE(history.first("read.accept", "storage", [](const Event& e) { return e["reader"] == "worker-1"; }));
  EXPECT_TRUE(history.first("read.accept", "storage", [](const Event& e) { return e["reader"] == "worker-2"; }));
  EXPECT_EQ(history.count("read.reject"), 0u);
}

TEST(StorageReads, WithFencingButUnfencedReadsTheReadCarriesNoToken) {
  const History history = run_system(with_fencing(two_workers_one_job()));
  const std::vector<Event> accepted = history.all("read.accept", "storage");
  ASSERT_EQ(accepted.size(), 2u);
  for (const Event& read : accepted) EXPECT_FALSE(read.contains("token"));
}

TEST(StorageReads, AFencedReadIsRecordedWithItsToken) {
  SystemOptions options = with_fencing(two_workers_one_job());
  options.storage.fence_reads = true;
  const History history = run_system(options);
  const std::vector<Event> accepted = history.all("read.accept", "storage");
  ASSERT_EQ(accepted.size(), 2u);
  for (const Event& read : accepted) {
    const auto acquired = history.first("acquire.ok", read["reader"]);
    ASSERT_TRUE(acquired);
    EXPECT_EQ(read["token"], (*acquired)["token"]);
  }
}

TEST(StorageReads, EveryReadInvokeThatReachesStorageIsAnsweredInTheHistoryBeforeItsReadOk) {
  SystemOptions options = two_workers_one_job();
  options.workload = CounterWorkload{"qty", 2};
  const History history = run_system(options);
  std::map<std::string, int> accepted_before_ok;
  for (const Event& event : history.events) {
    if (event["ev"] == "read.accept") ++accepted_before_ok[event["reader"]];
    if (event["ev"] == "read.ok") {
      EXPECT_GT(accepted_before_ok[event["proc"]]--, 0) << event.dump();
    }
  }
}

}  // namespace
}  // namespace locksim::model
