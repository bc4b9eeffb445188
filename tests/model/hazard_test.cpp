// One deterministic test per hazard of the catalogue (shared/hazards.md),
// each with a hand-built plan and assertions on the events the models emit.
#include <gtest/gtest.h>

#include "model_test_support.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::run_system;
using testing::two_workers_one_job;
using testing::with_fencing;

bool has_token(const Event& event, std::int64_t token) { return event.contains("token") && event["token"] == token; }

// --- control: nothing goes wrong ------------------------------------------------------

TEST(Control, WithoutFaultsEveryJobWritesOnceUnderItsOwnLease) {
  SystemOptions options = two_workers_one_job();
  options.workload = CounterWorkload{"qty", 5};
  const History history = run_system(options);
  EXPECT_EQ(history.count("write.accept"), 10u);
  EXPECT_EQ(history.count("write.reject"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 10);
  EXPECT_EQ(history.count("lease.grant"), 10u);
  EXPECT_EQ(history.count("lease.release"), 10u);
  EXPECT_EQ(history.count("lease.expire"), 0u);
  // Holds never overlap: each hold.begin comes after the previous hold.end.
  int open_holds = 0;
  for (const Event& event : history.events) {
    if (event["ev"] == "hold.begin") {
      EXPECT_EQ(++open_holds, 1);
    }
    if (event["ev"] == "hold.end") {
      --open_holds;
    }
  }
}

// --- H1: pause past the lease ---------------------------------------------------------

void pause_worker_1_after_acquire(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", "acquire.ok", 1, 0_s, [&nemesis, &system] { nemesis.pause(system.worker_node(1), 15_s); });
}

TEST(H1PausePastLease, WithoutFencingTheWokenHoldersStaleWriteIsAccepted) {
  const History history = run_system(two_workers_one_job(), pause_worker_1_after_acquire);
  const auto second_grant = history.first("lease.grant", "redis-0", [](const Event& e) { return has_token(e, 2); });
  ASSERT_TRUE(second_grant);
  EXPECT_EQ((*second_grant)["owner"], "worker-2");
  const auto stale = history.first("write.accept", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(stale);
  EXPECT_GT((*stale)["t"], (*second_grant)["t"]);
  EXPECT_TRUE(history.first("lease.expire", "redis-0", [](const Event& e) { return has_token(e, 1); }));
}

TEST(H1PausePastLease, WithFencingTheWokenHoldersWriteIsRejectedAsStale) {
  const History history = run_system(with_fencing(two_workers_one_job()), pause_worker_1_after_acquire);
  const auto rejected = history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["reason"], "stale-token");
  EXPECT_EQ((*rejected)["token"], 1);
  // worker-1 then does its job again under a new lease.
  EXPECT_EQ(history.final_values()["qty"], 2);
}

}  // namespace
}  // namespace locksim::model
