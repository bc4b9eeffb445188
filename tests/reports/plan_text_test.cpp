#include "reports/plan_text.h"

#include <gtest/gtest.h>

namespace locksim::reports {
namespace {

using namespace sim::literals;

TEST(WorkerStartsText, NamesTheWorkersInTheOrderTheyFirstAskTiesInWorkerOrder) {
  scenario::Plan plan;
  plan.worker_starts = {{"worker-1", 800_ms}, {"worker-2", 250_ms}, {"worker-3", 800_ms}};
  EXPECT_EQ(worker_starts_text(plan), "workers begin: worker-2 at 250ms, worker-1 at 800ms, worker-3 at 800ms");
}

TEST(WorkerStartsText, TiesGoByWorkerNumberNotByName) {
  scenario::Plan plan;
  plan.worker_starts = {{"worker-10", 5_ms}, {"worker-2", 5_ms}, {"worker-1", 9_ms}};
  EXPECT_EQ(worker_starts_text(plan), "workers begin: worker-2 at 5ms, worker-10 at 5ms, worker-1 at 9ms");
}

TEST(WorkerStartsText, IsEmptyWhenEveryWorkerBeginsAtTimeZero) {
  scenario::Plan plan;
  plan.worker_starts = {{"worker-1", 0_s}, {"worker-2", 0_s}};
  EXPECT_EQ(worker_starts_text(plan), "");
}

}  // namespace
}  // namespace locksim::reports
