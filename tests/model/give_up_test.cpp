// Clients that give up (acquire_timeout, max_tries): a job whose acquire does
// not succeed in time fails — acquire.give_up, never done — and the worker
// moves on instead of waiting as long as the run lasts.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model_test_support.h"

#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::run_system;

// worker-1 takes a lock without expiry and crashes holding it: nobody else can
// ever acquire, so every acquire of worker-2 fails ("held").
SystemOptions lock_lost_for_good(int jobs) {
  SystemOptions options = testing::two_workers_one_job();
  options.lock.lease = std::nullopt;
  options.workload = CounterWorkload{"qty", jobs};
  return options;
}

void crash_worker_1_holding(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kAcquireOk, 1, 0_s,
                      [&nemesis, &system] { nemesis.crash(system.worker_node(1), std::nullopt); });
}

TEST(GiveUp, AWorkerOutOfTriesGivesEachJobUpAndTheRunEndsInsteadOfHanging) {
  SystemOptions options = lock_lost_for_good(2);
  options.workers.max_tries = 3;
  testing::RunSettings settings;
  settings.time_limit = 10_min;
  const History history = run_system(options, crash_worker_1_holding, settings);
  const std::vector<Event> give_ups = history.all("acquire.give_up", "worker-2");
  ASSERT_EQ(give_ups.size(), 2u);  // one per job
  for (const Event& give_up : give_ups) {
    EXPECT_EQ(give_up["reason"], "max-tries");
    EXPECT_EQ(give_up["tries"], 3);
  }
  EXPECT_EQ(history.count("acquire.fail", "worker-2"), 6u);
  EXPECT_EQ(history.count("hold.begin", "worker-2"), 0u);
  // Both jobs failed and the worker finished: the run ends long before its limit.
  EXPECT_LT(history.all("run.end").at(0)["t"].get<std::int64_t>(), (1_min).count_ns());
}

TEST(GiveUp, AnAcquireTimeoutGivesUpAtTheDeadlineAfterOneLastTry) {
  SystemOptions options = lock_lost_for_good(1);
  options.workers.acquire_timeout = 1_s;
  options.workers.retry = sim::Distribution::constant(300_ms);
  const History history = run_system(options, crash_worker_1_holding);
  const auto first_try = history.first("acquire.invoke", "worker-2");
  const auto give_up = history.first("acquire.give_up", "worker-2");
  ASSERT_TRUE(first_try);
  ASSERT_TRUE(give_up);
  EXPECT_EQ((*give_up)["reason"], "timeout");
  // Tries at 0, 0.3, 0.6, 0.9 s and the last at the 1 s deadline (the wait cut to 0.1 s).
  EXPECT_EQ((*give_up)["tries"], 5);
  const std::int64_t waited_ns = (*give_up)["t"].get<std::int64_t>() - (*first_try)["t"].get<std::int64_t>();
  EXPECT_GE(waited_ns, (1_s).count_ns());
  EXPECT_LT(waited_ns, (1_s + 10_ms).count_ns());
}

TEST(GiveUp, ABillingWorkerThatGivesUpStopsAndLeavesItsCustomersToTheOthers) {
  SystemOptions options = lock_lost_for_good(1);
  options.workload = BillingWorkload{"billed", 3};
  options.workers.max_tries = 2;
  const History history = run_system(options, crash_worker_1_holding);
  EXPECT_EQ(history.count("acquire.give_up", "worker-2"), 1u);
  EXPECT_EQ(history.count("acquire.invoke", "worker-2"), 2u);
}

TEST(GiveUp, AWorkerThatGetsTheLockWithinItsTriesDoesItsJob) {
  SystemOptions options = testing::two_workers_one_job();
  options.workers.max_tries = 32;
  options.workers.acquire_timeout = 10_s;
  const History history = run_system(options);
  EXPECT_EQ(history.count("acquire.give_up"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// For every cap n, a worker that never gets the lock makes exactly n attempts per job.
RC_GTEST_PROP(GiveUpProperties, AWorkerThatNeverGetsTheLockTriesExactlyMaxTriesTimesPerJob, ()) {
  const int max_tries = *rc::gen::inRange(1, 40);
  const int jobs = *rc::gen::inRange(1, 4);
  SystemOptions options = lock_lost_for_good(jobs);
  options.workers.max_tries = max_tries;
  options.workers.retry = sim::Distribution::uniform(1_ms, Duration::milliseconds(*rc::gen::inRange(2, 500)));
  testing::RunSettings settings;
  settings.seed = *rc::gen::arbitrary<std::uint64_t>();
  const History history = run_system(options, crash_worker_1_holding, settings);
  RC_ASSERT(history.count("acquire.give_up", "worker-2") == static_cast<std::size_t>(jobs));
  RC_ASSERT(history.count("acquire.invoke", "worker-2") == static_cast<std::size_t>(jobs * max_tries));
}

}  // namespace
}  // namespace locksim::model
